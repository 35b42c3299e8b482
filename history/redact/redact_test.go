package redact

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
)

// random returns n characters drawn from alphabet by a fixed generator: test keys look
// generated without any real key in the repository.
func random(seed uint64, n int, alphabet string) string {
	r := rand.New(rand.NewPCG(seed, seed))
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

const (
	alnum   = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	upper32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	b64     = alnum + "+/"
	urlsafe = alnum + "_-"
)

// Fake keys in each vendor's documented format, built at run time.
var (
	anthropicKey = "sk-ant-api03-" + random(1, 93, urlsafe) + "AA"
	openaiKey    = "sk-proj-" + random(2, 74, urlsafe) + "T3BlbkFJ" + random(3, 74, urlsafe)
	openaiLegacy = "sk-" + random(4, 48, alnum)
	awsKeyID     = "AKIA" + random(5, 16, upper32)
	awsSecret    = random(6, 40, b64)
	githubPAT    = "ghp_" + random(7, 36, alnum)
	githubFine   = "github_pat_" + random(8, 82, alnum+"_")
	gitlabPAT    = "glpat-" + random(9, 20, urlsafe)
	slackBot     = "xoxb-" + random(10, 12, "0123456789") + "-" + random(11, 13, "0123456789") + "-" + random(12, 24, alnum)
	slackHook    = "https://hooks.slack.com/services/T" + random(13, 8, upper32) + "/B" + random(14, 8, upper32) + "/" + random(15, 24, alnum)
	googleKey    = "AIza" + random(16, 35, urlsafe)
	googleOAuth  = "ya29." + random(17, 60, urlsafe)
	stripeKey    = "sk_live_" + random(18, 24, alnum)
	stripeRK     = "rk_test_" + random(19, 24, alnum)
	bearer       = random(20, 40, alnum)
	jwt          = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0." + random(21, 43, urlsafe)
	dbPassword   = random(22, 20, alnum)
	genericToken = random(23, 32, alnum)
)

func TestBytesRedactsVendorFormats(t *testing.T) {
	cases := []struct {
		name, text, secret, kind string
	}{
		{"anthropic", "export ANTHROPIC=" + anthropicKey + "\n", anthropicKey, "anthropic-key"},
		{"anthropic in quotes", `{"key":"` + anthropicKey + `"}`, anthropicKey, "anthropic-key"},
		{"openai project", "key " + openaiKey + " used", openaiKey, "openai-key"},
		{"openai legacy", "OPENAI " + openaiLegacy, openaiLegacy, "openai-key"},
		{"aws key id", "id=" + awsKeyID + ".", awsKeyID, "aws-access-key-id"},
		{"aws secret assigned", "AWS_SECRET_ACCESS_KEY=" + awsSecret, awsSecret, "assigned-secret"},
		{"aws secret in config", "aws_secret_access_key = " + awsSecret, awsSecret, "assigned-secret"},
		{"github classic", "token " + githubPAT, githubPAT, "github-token"},
		{"github fine-grained", githubFine, githubFine, "github-token"},
		{"gitlab", "glpat: " + gitlabPAT, gitlabPAT, "gitlab-token"},
		{"slack bot", "SLACK " + slackBot, slackBot, "slack-token"},
		{"slack webhook", "curl " + slackHook, strings.TrimPrefix(slackHook, "https://"), "slack-webhook"},
		{"google api key", "maps " + googleKey, googleKey, "google-api-key"},
		{"google oauth", "access " + googleOAuth, googleOAuth, "google-oauth"},
		{"stripe secret", "stripe " + stripeKey, stripeKey, "stripe-key"},
		{"stripe restricted", "stripe " + stripeRK, stripeRK, "stripe-key"},
		{"bearer", "Authorization: Bearer " + bearer, bearer, "bearer-token"},
		{"jwt", "cookie " + jwt, jwt, "jwt"},
		{"url password", "postgres://app:" + dbPassword + "@db:5432/x", dbPassword, "url-password"},
		{"generic json", `{"api_key": "` + genericToken + `"}`, genericToken, "assigned-secret"},
		{"generic token env", "export MY_SERVICE_TOKEN='" + genericToken + "'", genericToken, "assigned-secret"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := string(Bytes([]byte(c.text)))
			if strings.Contains(got, c.secret) {
				t.Fatalf("the secret is still there: %q", got)
			}
			if !strings.Contains(got, Mark(c.kind)) {
				t.Fatalf("want %s in %q", Mark(c.kind), got)
			}
		})
	}
}

func TestBytesKeepsWhatIsNoSecret(t *testing.T) {
	texts := []string{
		"the task-list is done; skip the rest",
		`{"type":"result","usage":{"input_tokens":1234,"cache_read_input_tokens":20480,"output_tokens":77}}`,
		"max_tokens = 4096",
		"primary_key = customer_identifier_column",
		"commit 3f2a9c1d4e5b6a7980c1d2e3f4a5b6c7d8e9f0a1",
		"Bearer authentication is configured in config.yaml",
		"AKIA is the prefix of AWS access key ids",
		"see https://example.com/docs and git@github.com:o/r.git",
		"sk-ant- is how Anthropic keys begin",
		"ghp_ short",
		"task-ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcdefgh",
		"-----BEGIN PUBLIC KEY-----",
		"SUCCESS",
	}
	for _, text := range texts {
		if got := string(Bytes([]byte(text))); got != text {
			t.Errorf("changed %q into %q", text, got)
		}
	}
}

func TestPrivateKeyBlockAcrossLines(t *testing.T) {
	block := "-----BEGIN OPENSSH PRIVATE KEY-----\n" + random(30, 70, b64) + "\n" + random(31, 70, b64) + "\n-----END OPENSSH PRIVATE KEY-----"
	text := "before\n" + block + "\nafter\n"
	got := string(Bytes([]byte(text)))
	if want := "before\n" + Mark("private-key") + "\nafter\n"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	escaped := `{"error":"` + strings.ReplaceAll(block, "\n", `\n`) + `","next":1}`
	if got := string(Bytes([]byte(escaped))); got != `{"error":"`+Mark("private-key")+`","next":1}` {
		t.Fatalf("escaped block: got %q", got)
	}
}

// writeInChunks writes text to a Writer n bytes at a time and returns what came out.
func writeInChunks(t *testing.T, text string, n int) string {
	t.Helper()
	var out bytes.Buffer
	w := NewWriter(&out)
	for len(text) > 0 {
		k := min(n, len(text))
		if got, err := w.Write([]byte(text[:k])); err != nil || got != k {
			t.Fatalf("Write = %d, %v", got, err)
		}
		text = text[k:]
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

func TestWriterKeepsKeysWholeAcrossWrites(t *testing.T) {
	block := "-----BEGIN RSA PRIVATE KEY-----\n" + random(40, 64, b64) + "\n" + random(41, 64, b64) + "\n-----END RSA PRIVATE KEY-----\n"
	text := "working…\nfound " + anthropicKey + " in .env\n" + block + "AWS_ACCESS_KEY_ID=" + awsKeyID + "\nAWS_SECRET_ACCESS_KEY=" + awsSecret + "\nno newline at the end " + githubPAT
	want := "working…\nfound " + Mark("anthropic-key") + " in .env\n" + Mark("private-key") + "\nAWS_ACCESS_KEY_ID=" + Mark("aws-access-key-id") +
		"\nAWS_SECRET_ACCESS_KEY=" + Mark("assigned-secret") + "\nno newline at the end " + Mark("github-token")
	for _, n := range []int{1, 2, 3, 7, 13, 64, 1 << 20} {
		if got := writeInChunks(t, text, n); got != want {
			t.Errorf("chunks of %d: got %q, want %q", n, got, want)
		}
	}
}

func TestWriterLongLineWithoutNewline(t *testing.T) {
	filler := strings.Repeat("word ", maxLine/5+100)
	text := filler + anthropicKey + " " + filler
	got := writeInChunks(t, text, 4096)
	if strings.Contains(got, anthropicKey) || !strings.Contains(got, Mark("anthropic-key")) {
		t.Fatal("the key in a long line was not redacted")
	}
	if want := strings.Replace(text, anthropicKey, Mark("anthropic-key"), 1); got != want {
		t.Fatal("the long line was not passed on whole")
	}
}

// A block without its END line (a truncated error message) ends where its body does, so
// that the string holding it stays whole.
func TestUnterminatedBlockEndsWithItsBody(t *testing.T) {
	text := `last_error = "agent: -----BEGIN RSA PRIVATE KEY-----\nMIIEow` + random(50, 40, b64) + `\nAb"` + "\nnext = 1\n"
	want := `last_error = "agent: ` + Mark("private-key") + `"` + "\nnext = 1\n"
	if got := string(Bytes([]byte(text))); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	stream := "-----BEGIN PRIVATE KEY-----\n" + random(51, 64, b64) + "\n" + random(52, 64, b64) + "\nkey printed, moving on.\n"
	if got := writeInChunks(t, stream, 5); got != Mark("private-key")+" printed, moving on.\n" {
		t.Errorf("stream: got %q", got)
	}
}

func TestUnterminatedBlockIsGivenUp(t *testing.T) {
	text := "-----BEGIN PRIVATE KEY-----\n" + strings.Repeat("x\n", maxBlock) + "visible\n"
	got := writeInChunks(t, text, 1000)
	if !strings.HasSuffix(got, "visible\n") {
		t.Fatalf("a block without its end swallowed the rest: ends %q", got[max(0, len(got)-40):])
	}
}

// After a gap (chunks a slow reader lost), the pieces on either side are dropped up to
// the next newline: joined, they would hide a key cut in two.
func TestWriterGap(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out)
	w.Write([]byte("whole line\nsk-ant-api03-" + random(60, 40, urlsafe)))
	w.Gap()
	w.Write([]byte(random(61, 53, urlsafe) + "AA rest\nnext " + githubPAT + "\n"))
	w.Flush()
	if want := "whole line\nnext " + Mark("github-token") + "\n"; out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
}

// TestBytesRedactsInsideEncodedStrings: a state file, a record and a JSON event hold the
// agent's output as an encoded string, where a line break is the two bytes \n and a quote
// is \" . A key at the start of a line then follows an 'n', and an assigned value sits
// between escaped quotes: both were missed (record.toml and --json kept them verbatim).
func TestBytesRedactsInsideEncodedStrings(t *testing.T) {
	secrets := []struct{ text, secret string }{
		{anthropicKey, anthropicKey},
		{openaiKey, openaiKey},
		{awsKeyID, awsKeyID},
		{githubPAT, githubPAT},
		{gitlabPAT, gitlabPAT},
		{slackBot, slackBot},
		{googleKey, googleKey},
		{stripeKey, stripeKey},
		{jwt, jwt},
		{`"SecretAccessKey": "` + awsSecret + `"`, awsSecret},
		{`{"api_key":"` + genericToken + `"}`, genericToken},
	}
	for _, s := range secrets {
		text := "failed:\n" + s.text + "\n\tand " + s.text + "\nend"
		tomlText, err := toml.Marshal(map[string]string{"error": text})
		if err != nil {
			t.Fatal(err)
		}
		jsonText, err := json.Marshal(map[string]string{"error": text})
		if err != nil {
			t.Fatal(err)
		}
		for _, encoded := range [][]byte{tomlText, jsonText} {
			if got := string(Bytes(encoded)); strings.Contains(got, s.secret) {
				t.Errorf("the secret is still there: %s", got)
			}
		}
	}
}

// TestBytesRedactsAfterColourCodes: coloured output puts an escape sequence such as
// ESC[32m right before a key; its final 'm' made the key look like the end of a longer
// word, and the key was kept (raw in output.log, \u001b[32m in JSON and TOML strings).
func TestBytesRedactsAfterColourCodes(t *testing.T) {
	for _, key := range []string{anthropicKey, openaiKey, awsKeyID, githubPAT, gitlabPAT, slackBot, googleKey, stripeKey, jwt} {
		for _, colour := range []string{"\x1b[32m", "\x1b[1;33m", "\x1b[0m", `\u001b[32m`, `\x1b[32m`, `\033[32m`} {
			text := "key: " + colour + key + "\x1b[0m\n"
			if got := string(Bytes([]byte(text))); strings.Contains(got, key) {
				t.Errorf("the secret is still there: %q", got)
			}
		}
	}
	// a word that merely ends in m is still a word: no key starts inside it
	if got := string(Bytes([]byte("programsk-" + random(30, 40, alnum)))); strings.Contains(got, "REDACTED") {
		t.Errorf("redacted inside a word: %q", got)
	}
}
