package secrets

import (
	"strings"
	"testing"
)

// A ruleCase is a text and what one rule must make of it: the secret it
// reports, or nothing, with why.
type ruleCase struct {
	text   string
	secret string // "": the rule reports nothing
	why    string
}

// checkRuleCases checks that the rule id finds exactly each case's secret, and
// nothing in the cases that have none. A case with no secret must still
// reach the rule's pattern or allowlist (it holds one of its keywords), so
// that it tests the rule and not the prefilter.
func checkRuleCases(t *testing.T, id string, cases []ruleCase) {
	t.Helper()
	var r *rule
	for _, x := range rules {
		if x.id == id {
			r = x
		}
	}
	if r == nil {
		t.Fatalf("no rule %s", id)
	}
	for _, c := range cases {
		var got []string
		for _, f := range Scan(c.text) {
			if f.Rule == id {
				got = append(got, c.text[f.Start:f.End])
			}
		}
		switch {
		case c.secret == "" && len(got) > 0:
			t.Errorf("%s: found %q in %q, want nothing (%s)", id, got, c.text, c.why)
		case c.secret != "" && (len(got) != 1 || got[0] != c.secret):
			t.Errorf("%s: found %q in %q, want %q (%s)", id, got, c.text, c.secret, c.why)
		}
		if c.secret == "" {
			lower := strings.ToLower(c.text)
			holds := false
			for _, k := range r.keywords {
				holds = holds || strings.Contains(lower, k)
			}
			if !holds {
				t.Errorf("%s: %q holds none of the rule's keywords, so it tests nothing", id, c.text)
			}
		}
	}
}

func TestURLPassword(t *testing.T) {
	checkRuleCases(t, "url-password", []ruleCase{
		{"postgres://app:9naHVck6pbd4ZRj2@db.internal:5432/app", "9naHVck6pbd4ZRj2", "a database URL"},
		{"mysql+pymysql://report:S3cr3t-Pa55@10.0.3.7/reports", "S3cr3t-Pa55", "a scheme with + in it"},
		{"redis://:ot7UGAoKD1AFfD@cache:6379/0", "ot7UGAoKD1AFfD", "redis: a password and no user"},
		{"rediss://default:Zq8Lm2Xv0T@cache.example.com:6380", "Zq8Lm2Xv0T", "TLS redis"},
		{"mongodb+srv://svc:h7#Kq!2vLp@cluster0.example.net/db", "h7#Kq!2vLp", "punctuation in the password"},
		{"https://deploy:p4ss:w0rd-x@git.example.com/a.git", "p4ss:w0rd-x", "the user ends at the first colon; the password may hold more"},
		{"jdbc:postgresql://app:Hx82kPq0z@db/app", "Hx82kPq0z", "inside a JDBC URL"},
		{"<journal>connected with amqp://worker:KZxCKu7SPC@rabbit/</journal>", "KZxCKu7SPC", "inside a sigil"},
		{"hunter2 leaked: ftp://bob:hunter2@files.example.com", "hunter2", "a weak password is a password"},

		{"https://user@example.com/path", "", "a user and no password"},
		{"ssh://git@github.com:22/gitleaks/gitleaks.git", "", "the colon after the host is a port"},
		{"http://localhost:8080/path@v2", "", "a port, then an @ in the path"},
		{"https://app:@db.example.com", "", "an empty password"},
		{"https://a:pw@db.example.com", "", "two characters: a placeholder"},
		{"postgres://user:password@localhost:5432/app", "", "the placeholder password"},
		{"postgres://postgres:postgres@localhost:5432/test", "", "the image's default, printed by every guide"},
		{"amqp://guest:guest@localhost:5672/", "", "RabbitMQ's default"},
		{"mysql://root:***@localhost/db", "", "masked"},
		{"postgres://app:${DB_PASSWORD}@db/app", "", "an environment reference"},
		{"postgres://app:${DB_PASSWORD_2}@db/app", "", "an environment reference with a digit"},
		{"redis://:$REDIS_PASSWORD@cache:6379", "", "a shell variable"},
		{"postgres://app:$(cat /run/secrets/db)@db/app", "", "a command substitution"},
		{"https://deploy:{password}@git.example.com", "", "a format placeholder"},
		{"postgres://app:%(password)s@db/app", "", "a Python format placeholder"},
		{"postgres://app:{{ .Values.password }}@db", "", "a template"},
		{"postgres://app:your-password-here@db/app", "", "a placeholder"},
		{"postgres://app:[REDACTED:url-password]@db/app", "", "already redacted"},
	})
}

func TestAuthorizationHeader(t *testing.T) {
	checkRuleCases(t, "authorization-header", []ruleCase{
		{"Authorization: Basic ZGVwbG95OlJmTmFkdldQMXlCd2RON1R0TQ==", "ZGVwbG95OlJmTmFkdldQMXlCd2RON1R0TQ==", "a request's header"},
		{`curl -H "Authorization: Bearer N8YS2UbsHFj42g5hzdeDU16Jsz7GolI8" https://api.example.com`, "N8YS2UbsHFj42g5hzdeDU16Jsz7GolI8", "curl -H"},
		{`curl --header 'authorization: bearer N8YS2UbsHFj42g5h'`, "N8YS2UbsHFj42g5h", "lower case, --header"},
		{`headers = {"Authorization": "Token b27995acfae28f43fcc082921e185fff11f2e7e8"}`, "b27995acfae28f43fcc082921e185fff11f2e7e8", "a dictionary, Django REST framework's scheme"},
		{`req.Header.Set("Authorization", "Bearer KZxCKu7SPCzX3ZeF981bmiIl")`, "KZxCKu7SPCzX3ZeF981bmiIl", "Go code"},
		{`'Authorization' => 'Bearer KZxCKu7SPCzX3ZeF'`, "KZxCKu7SPCzX3ZeF", "PHP and Ruby"},
		{"Proxy-Authorization: Basic dXNlcjE6WnE4TG0yWHYwVA==", "dXNlcjE6WnE4TG0yWHYwVA==", "a proxy's header"},
		{"<journal>sent Authorization: Bearer sha256~bRLFnzd59Z3XpZH5</journal>", "sha256~bRLFnzd59Z3XpZH5", "before a tag"},

		{"Authorization: Bearer $TOKEN", "", "a shell variable"},
		{"Authorization: Bearer ${API_TOKEN}", "", "a reference"},
		{`curl -H "Authorization: Bearer <your token>"`, "", "a placeholder in brackets"},
		{`curl -H "Authorization: Bearer YOUR_ACCESS_TOKEN"`, "", "a placeholder"},
		{`curl -H "Authorization: Bearer ACCESS_TOKEN"`, "", "a name in capitals"},
		{`headers["Authorization"] = "Bearer " + token`, "", "a token added in code"},
		{`req.Header.Set("Authorization", "Bearer "+tok)`, "", "a token added in code"},
		{"Authorization: Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==", "", "RFC 7617's example"},
		{"Authorization: Basic dXNlcm5hbWU6cGFzc3dvcmQ=", "", "username:password"},
		{"Authorization: Bearer xxxxxxxxxxxxxxxx", "", "masked"},
		{"Authorization: Bearer ...", "", "elided"},
		{"Authorization: Bearer abc123", "", "shorter than 8"},
		{"the Authorization header carries a bearer token", "", "prose"},
		{"Authorization: Bearer authentication-required", "", "words"},
		{"Authorization: Digest username=\"bob\", response=\"6629fae49393a05397450978507c4ef1\"", "", "a digest response is no reusable credential"},
	})
}

func TestCurlAuthUser(t *testing.T) {
	checkRuleCases(t, "curl-auth-user", []ruleCase{
		{"curl --cacert ca.crt -u elastic:9naHVck6pbd4ZRj2 https://localhost:9200", "elastic:9naHVck6pbd4ZRj2", "-u"},
		{"curl -s --user 'api:SxphvDTwrzqwo72n3wZu' https://api.mailgun.net", "'api:SxphvDTwrzqwo72n3wZu'", "--user, quoted"},
		{`curl -u ":d2LkV78zLx!t" https://localhost:9200`, `":d2LkV78zLx!t"`, "no user"},
		{"curl -k -X POST https://infinispan:11222/rest \\\n  -H 'Content-type: text/plain' \\\n  -u developer:yqDVtkqPECriaLRi", "developer:yqDVtkqPECriaLRi", "two continued lines later"},
		{"<journal>ran curl -u admin:K8vQ2xLm9p</journal>", "admin:K8vQ2xLm9p", "before a tag"},

		{"curl -i -u 'test:test'", "", "gitleaks' placeholder"},
		{"curl -u user:password https://example.com", "", "a placeholder password"},
		{`curl -u "$USER:$PASS" https://example.com`, "", "shell variables"},
		{"curl --user neo4j:[PASSWORD] http://localhost:7474/db/data/", "", "a placeholder in brackets"},
		{`curl -u "myusername" http://localhost:15130/api/check_user/`, "", "a user and no password: curl asks for it"},
		{`curl -X POST --user "$(cat ./login.txt):$(cat ./password.txt)"`, "", "command substitutions"},
		{"run curl against the API; the user is admin:K8vQ2xLm9p", "", "no -u"},
	})
	// Two commands a few lines apart: both users are found, in one scan.
	two := "curl -u a1:Zq8Lm2Xv0T https://a\ncurl -u b2:Rt5Yh1Ue9W https://b"
	if got := describe(two, Scan(two)); got != "1:9 curl-auth-user «a1:Zq8Lm2Xv0T»; 2:9 curl-auth-user «b2:Rt5Yh1Ue9W»" {
		t.Errorf("two curl commands: found %s", got)
	}
}

func TestDjangoSecretKey(t *testing.T) {
	checkRuleCases(t, "django-secret-key", []ruleCase{
		{"SECRET_KEY = '2t9b1ya&w$y7ajqp56vup*@u5ua#w(ovdl^6_g_!zvivguv3=$'", "2t9b1ya&w$y7ajqp56vup*@u5ua#w(ovdl^6_g_!zvivguv3=$", "a key get_random_secret_key made"},
		{`SECRET_KEY = "django-insecure-ot7UGAoKD1AFfD9naHVck6pbd4ZRj2"`, "django-insecure-ot7UGAoKD1AFfD9naHVck6pbd4ZRj2", "startproject's development key"},
		{"app.config['SECRET_KEY'] = 'KZxCKu7SPCzX3ZeF981bmiIl'", "KZxCKu7SPCzX3ZeF981bmiIl", "Flask"},
		{`SECRET_KEY: str = "x9#Lm2!vT0qP4wZ8"`, "x9#Lm2!vT0qP4wZ8", "with a type annotation"},
		{"<journal>set SECRET_KEY='a8%Kq!2vLp#0zX'</journal>", "a8%Kq!2vLp#0zX", "inside a sigil"},

		{`SECRET_KEY = os.environ["SECRET_KEY"]`, "", "read from the environment"},
		{"SECRET_KEY = get_random_secret_key()", "", "made at start-up"},
		{"SECRET_KEY = 'change-me-in-production'", "", "words"},
		{`SECRET_KEY = "your-secret-key-here"`, "", "a placeholder"},
		{"SECRET_KEY = 'short'", "", "shorter than 8"},
		{`if SECRET_KEY == "x9#Lm2!vT0qP4wZ8":`, "", "a comparison, not a setting"},
		{"the SECRET_KEY setting signs sessions", "", "prose"},
	})
}

func TestSecretAssignment(t *testing.T) {
	checkRuleCases(t, "secret-assignment", []ruleCase{
		{"DB_PASSWORD=Xv!hqC#5smm%op4qbODo", "Xv!hqC#5smm%op4qbODo", "punctuation the generic rule's values cannot hold"},
		{"SECRET_KEY=k3v9x!q7m#zt2w8rplb4yd6hn0cj5fs&(-a1ue=+)g", "k3v9x!q7m#zt2w8rplb4yd6hn0cj5fs&(-a1ue=+)g", "Django's key, unquoted, as a .env file has it"},
		{"the key: DB_PASSWORD=Xv!hqC#5smm%op4qbODo", "Xv!hqC#5smm%op4qbODo", "after prose"},
		{"the token: API_TOKEN=Rt5!Yh1Ue9Wq3Io6P#zK, then", "Rt5!Yh1Ue9Wq3Io6P#zK", "after prose, the value is not the name; the comma ends the sentence"},
		{`"db_password": "a8%Kq!2vLp#0zX",`, "a8%Kq!2vLp#0zX", "JSON"},
		{"password: h7#Kq!2vLp9zX", "h7#Kq!2vLp9zX", "YAML"},
		{"export PGPASSWORD='Zq8@Lm2Xv0&Tb7'", "Zq8@Lm2Xv0&Tb7", "a shell export"},
		{"<journal>set API_KEY=Tb7^Kp4N!Zq8Lm2</journal>", "Tb7^Kp4N!Zq8Lm2", "before a tag"},

		{"DB_PASSWORD=XvihqCx5smmgop4qbODo", "", "the generic rule's: no punctuation"},
		{"password = getpass.getpass(prompt2)", "", "a call"},
		{`access_key = request.headers["X-Access-Key-2"]`, "", "an index"},
		{"PASSWORD=${DB_PASSWORD:-default1}", "", "a reference with a default"},
		{"secret: https://vault.example.com/v1/app#key2", "", "a URL"},
		{"secret: admin1@example.com", "", "an address"},
		{"password_hash: $2b$12$KIXQJ6sJ9kXgY0x1mN2pQe", "", "a hash is about a password"},
		{"token_pattern = ^[a-z0-9]{8}-[a-z0-9]{4}$", "", "a pattern"},
		{"password: correct-horse!battery", "", "no digit"},
		{"token: 2024-06-01T12:00:00+02:00", "", "a time, too plain"},
		{"password: changeme-2024!", "", "a placeholder"},
		{"if password == 'Xv!hqC#5smm%op4qbODo':", "", "a comparison"},
	})
}

// TestAssignmentAfterProse checks that the generic rule finds an assignment
// whose name follows a keyword and an operator in prose ("the key:
// DB_PASSWORD=…"), which gitleaks' form takes for the value of "key" and
// whose stopwords then allow it.
func TestAssignmentAfterProse(t *testing.T) {
	checkRuleCases(t, "generic-api-key", []ruleCase{
		{"the key: DB_PASSWORD=XvihqCx5smmgop4qbODo", "XvihqCx5smmgop4qbODo", "after 'the key:'"},
		{"use this token: API_TOKEN=Rt5Yh1Ue9Wq3Io6PzK2n", "Rt5Yh1Ue9Wq3Io6PzK2n", "after 'this token:'"},
		{"auth => secret=token=Zq8Lm2Xv0Tb7Kp4N", "Zq8Lm2Xv0Tb7Kp4N", "assignments in a chain"},
		{"key=api_key=Zq8Lm2Xv0Tb7Kp4N", "Zq8Lm2Xv0Tb7Kp4N", "at the end of the text"},
		{"api_key: dGhpcyBpcyBhIHRlc3Qgb2Yga2V5cw==", "dGhpcyBpcyBhIHRlc3Qgb2Yga2V5cw==", "padding is no assignment"},

		{"the key: FOO=bar", "", "an assignment to a name that is no secret's, too short"},
	})
}
