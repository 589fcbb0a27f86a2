package entry

import "slices"

// The text fields of each kind of entry, and of each input that makes
// one: the one list of what can carry text, which the secret check reads
// (SecretCheck.Texts). A direct command's normalize and lore import's
// check take their fields from here, so that a field added to a type is
// checked wherever the type is written: TestTextFieldsCoverEveryString
// fails until it is listed.
//
// The fields point into the value they were taken from. Lists of
// structs (a journal entry's failure report, a knowledge entry's
// sources) are copied first, so that a redaction through the pointers
// leaves what the caller shares with the value as it was; a list of
// strings is copied by SecretCheck.List when it redacts.

// TextFields are m's text fields, its id first.
func (m *Memory) TextFields() []TextField {
	return []TextField{
		{Name: "id", Value: &m.ID},
		{Name: "type", Value: (*string)(&m.Type)},
		{Name: "content", Value: &m.Content},
		{Name: "tags", List: &m.Tags},
		{Name: "created", Value: &m.Created},
	}
}

// TextFields are k's text fields, its slug first.
func (k *Knowledge) TextFields() []TextField {
	fields := []TextField{
		{Name: "slug", Value: &k.Slug},
		{Name: "title", Value: &k.Title},
		{Name: "tags", List: &k.Tags},
		{Name: "feature", Value: &k.Feature},
		{Name: "created_at", Value: &k.CreatedAt},
		{Name: "updated_at", Value: &k.UpdatedAt},
		{Name: "body", Value: &k.Body},
		{Name: "path", Value: &k.Path},
	}
	return append(fields, sourceFields(&k.Sources)...)
}

// TextFields are l's text fields, its id first.
func (l *Learning) TextFields() []TextField {
	return []TextField{
		{Name: "id", Value: &l.ID},
		{Name: "category", Value: &l.Category},
		{Name: "tags", List: &l.Tags},
		{Name: "task", Value: &l.Task},
		{Name: "created_at", Value: &l.CreatedAt},
		{Name: "status", Value: &l.Status},
		{Name: "status_reason", Value: &l.StatusReason},
		{Name: "superseded_by", Value: &l.SupersededBy},
		{Name: "kind", Value: &l.Kind},
		{Name: "task_type", Value: &l.TaskType},
		{Name: "source_runs", List: &l.SourceRuns},
		{Name: "body", Value: &l.Body},
		{Name: "path", Value: &l.Path},
	}
}

// TextFields are e's text fields, its run and file first, then its
// failure report's.
func (e *JournalEntry) TextFields() []TextField {
	fields := []TextField{
		{Name: "run_id", Value: &e.RunID},
		{Name: "path", Value: &e.Path},
		{Name: "task_id", Value: &e.TaskID},
		{Name: "feature_id", Value: &e.FeatureID},
		{Name: "outcome", Value: &e.Outcome},
		{Name: "model", Value: &e.Model},
		{Name: "next_model", Value: &e.NextModel},
		{Name: "difficulty", Value: &e.Difficulty},
		{Name: "created_at", Value: &e.CreatedAt},
		{Name: "ingest_key", Value: &e.IngestKey},
		{Name: "reverted_at", Value: &e.RevertedAt},
		{Name: "notes", Value: &e.Notes},
		{Name: "files_modified", List: &e.FilesModified},
	}
	if e.Failure == nil {
		return fields
	}
	f := *e.Failure // the caller's stays as it was
	e.Failure = &f
	return append(fields,
		TextField{Name: "what_tried", Value: &f.WhatTried},
		TextField{Name: "why_failed", Value: &f.WhyFailed},
		TextField{Name: "error_category", Value: &f.ErrorCategory},
		TextField{Name: "stack_trace", Value: &f.StackTrace},
		TextField{Name: "retry_suggestion", Value: &f.RetrySuggestion},
		TextField{Name: "relevant_files", List: &f.RelevantFiles},
	)
}

// TextFields are in's text fields.
func (in *NewKnowledge) TextFields() []TextField {
	fields := []TextField{
		{Name: "title", Value: &in.Title},
		{Name: "feature", Value: &in.Feature},
		{Name: "body", Value: &in.Body},
		{Name: "tags", List: &in.Tags},
	}
	return append(fields, sourceFields(&in.Sources)...)
}

// TextFields are in's text fields.
func (in *NewLearning) TextFields() []TextField {
	return []TextField{
		{Name: "category", Value: &in.Category},
		{Name: "task", Value: &in.Task},
		{Name: "body", Value: &in.Body},
		{Name: "status", Value: &in.Status},
		{Name: "kind", Value: &in.Kind},
		{Name: "task_type", Value: &in.TaskType},
		{Name: "tags", List: &in.Tags},
		{Name: "source_runs", List: &in.Runs},
	}
}

// sourceFields are the paths and blobs of *sources, copied first.
func sourceFields(sources *[]Source) []TextField {
	if len(*sources) == 0 {
		return nil
	}
	*sources = slices.Clone(*sources)
	fields := make([]TextField, 0, 2*len(*sources))
	for i := range *sources {
		s := &(*sources)[i]
		fields = append(fields, TextField{Name: "sources", Value: &s.Path}, TextField{Name: "sources", Value: &s.Blob})
	}
	return fields
}
