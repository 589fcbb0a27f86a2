package entry

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
)

// A textFielder is an entry or an input whose text fields the secret
// check reads.
type textFielder interface{ TextFields() []TextField }

// TestTextFieldsCoverEveryString fills every string of each entry and
// input type — its fields, the items of its lists, the fields of the
// structs it holds or points to — with a value of its own, and checks that
// TextFields points at each: a field added to a type and forgotten in its
// TextFields fails here, before a secret could reach git through it.
func TestTextFieldsCoverEveryString(t *testing.T) {
	for _, v := range []textFielder{&Memory{}, &Knowledge{}, &Learning{}, &JournalEntry{}, &NewKnowledge{}, &NewLearning{}} {
		want := fillStrings(v, func(path string) string { return "<" + path + ">" })
		var got []string
		for _, f := range v.TextFields() {
			if f.List != nil {
				got = append(got, *f.List...)
			} else {
				got = append(got, *f.Value)
			}
		}
		for _, w := range want {
			if !slices.Contains(got, w) {
				t.Errorf("%T: TextFields leaves out %s", v, w)
			}
		}
	}
}

// TestTextFieldsLeaveTheCallersLists checks that redacting through the
// fields leaves the lists of structs the value shared with its caller as
// they were: a failure report, sources.
func TestTextFieldsLeaveTheCallersLists(t *testing.T) {
	const pat = "ghp_Q3vW8kZr1TbX6nLp0YcJ5mHs2GdF9aEuRi7o"
	failure := &Failure{StackTrace: "auth " + pat}
	sources := []Source{{Path: "x " + pat}}
	e := JournalEntry{Failure: failure}
	k := NewKnowledge{Sources: sources}
	c := &SecretCheck{Redact: true}
	if err := c.Texts(e.TextFields()...); err != nil {
		t.Fatal(err)
	}
	if err := c.Texts(k.TextFields()...); err != nil {
		t.Fatal(err)
	}
	if e.Failure.StackTrace != "auth [REDACTED:github-pat]" || k.Sources[0].Path != "x [REDACTED:github-pat]" {
		t.Errorf("not redacted: %q, %q", e.Failure.StackTrace, k.Sources[0].Path)
	}
	if failure.StackTrace != "auth "+pat || sources[0].Path != "x "+pat {
		t.Errorf("the caller's values changed: %q, %q", failure.StackTrace, sources[0].Path)
	}
}

// fillStrings sets every string reachable from the struct v points to —
// fields, one item of each list, the fields of a struct held or pointed
// to — to value(path), path naming it ("Failure.StackTrace",
// "Tags[0]"), and returns the values set. Numbers and booleans are left
// as they are.
func fillStrings(v any, value func(path string) string) []string {
	var set []string
	var fill func(rv reflect.Value, path string)
	fill = func(rv reflect.Value, path string) {
		switch rv.Kind() {
		case reflect.String:
			s := value(path)
			rv.SetString(s)
			set = append(set, s)
		case reflect.Struct:
			for i := range rv.NumField() {
				if f := rv.Type().Field(i); f.IsExported() {
					fill(rv.Field(i), join(path, f.Name))
				}
			}
		case reflect.Pointer:
			if rv.IsNil() {
				rv.Set(reflect.New(rv.Type().Elem()))
			}
			fill(rv.Elem(), path)
		case reflect.Slice:
			rv.Set(reflect.MakeSlice(rv.Type(), 1, 1))
			fill(rv.Index(0), fmt.Sprintf("%s[0]", path))
		}
	}
	fill(reflect.ValueOf(v).Elem(), "")
	return set
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}
