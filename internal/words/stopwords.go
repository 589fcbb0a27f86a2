package words

// StopWords are the English words a query ignores (Lucene's list): they
// match nearly every entry and would only add noise.
var StopWords = map[string]bool{
	"a": true, "an": true, "and": true, "are": true, "as": true, "at": true, "be": true,
	"but": true, "by": true, "for": true, "if": true, "in": true, "into": true, "is": true,
	"it": true, "no": true, "not": true, "of": true, "on": true, "or": true, "such": true,
	"that": true, "the": true, "their": true, "then": true, "there": true, "these": true,
	"they": true, "this": true, "to": true, "was": true, "will": true, "with": true,
}

// QuestionWords are the words of a question that carry no topic: its
// interrogatives, auxiliaries and modals, pronouns, determiners and
// quantifiers, the prepositions and conjunctions of Snowball's English
// stop list that tell no place or time, and the fillers people put around
// a question ("sometimes", "know", "get", "happen", "way"). "why does the
// nightly export email arrive twice" asks about nightly, export, email,
// arrive and twice. A query drops them when it has another word
// (index.QueryTokens); the index still holds them, and a query made of
// them alone looks for them.
//
// Left out on purpose, as words that do tell something in a software
// note: the particles of phrasal verbs and states (up, down, out, off,
// over, under, back: "the API is down", "timed out", "set up"), the words
// of order in time (before, after, during, until, while, again, once,
// first, last), the negations' own meaning words (never, without,
// fail), the words of comparison (same, more, most, other, few: "the
// same invoice number twice"), "too" (of "too many clients" and "too
// large"), and "i", which is also the i of i/o.
var QuestionWords = map[string]bool{
	// interrogatives
	"what": true, "which": true, "who": true, "whom": true, "whose": true, "why": true, "how": true, "when": true, "where": true,
	// auxiliaries and modals
	"am": true, "were": true, "been": true, "being": true, "have": true, "has": true, "had": true, "having": true,
	"do": true, "does": true, "did": true, "doing": true, "done": true, "would": true, "should": true, "could": true,
	"can": true, "cannot": true, "may": true, "might": true, "must": true, "shall": true, "ought": true,
	// pronouns
	"me": true, "my": true, "myself": true, "mine": true, "we": true, "us": true, "our": true, "ours": true,
	"ourselves": true, "you": true, "your": true, "yours": true, "yourself": true, "yourselves": true, "he": true,
	"him": true, "his": true, "himself": true, "she": true, "her": true, "hers": true, "herself": true, "its": true,
	"itself": true, "them": true, "theirs": true, "themselves": true, "someone": true, "anyone": true, "everyone": true,
	"somebody": true, "anybody": true, "something": true, "anything": true, "everything": true,
	// determiners and quantifiers
	"those": true, "all": true, "any": true, "both": true, "each": true, "every": true, "some": true,
	// conjunctions, and prepositions that tell no place or time
	"because": true, "so": true, "than": true, "very": true, "just": true, "also": true, "only": true,
	"about": true, "from": true, "here": true, "now": true, "else": true, "nor": true, "further": true,
	// fillers around a question
	"sometimes": true, "always": true, "ever": true, "still": true, "even": true, "really": true, "actually": true,
	"already": true, "yet": true, "anymore": true, "know": true, "knows": true, "get": true, "gets": true,
	"getting": true, "got": true, "happen": true, "happens": true, "happened": true, "happening": true,
	"seem": true, "seems": true, "need": true, "needs": true, "want": true, "wants": true, "way": true,
	"thing": true, "things": true, "stuff": true, "like": true, "keep": true, "keeps": true,
}
