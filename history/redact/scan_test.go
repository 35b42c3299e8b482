package redact

import (
	"strings"
	"testing"
)

const awsKey = "AKIAIOSFODNN7EXAMPLQ"

const oneCommit = `commit 1111111111111111111111111111111111111111
diff --git a/conf/app.env b/conf/app.env
index 0000000..1111111 100644
--- a/conf/app.env
+++ b/conf/app.env
@@ -3,0 +4,2 @@ x
+REGION=eu-west-1
+AWS_ACCESS_KEY_ID=` + awsKey + `
@@ -9 +11 @@ x
-OLD_KEY=AKIAZZZZZZZZZZZZZZZZ
+OLD_KEY=removed
`

func TestScanDiffFindsAddedKeyWithFileAndLine(t *testing.T) {
	found, allowed := ScanDiff([]byte(oneCommit), nil)
	if len(found) != 1 || allowed != 0 {
		t.Fatalf("found %v (allowed %d), want the one added key", found, allowed)
	}
	f := found[0]
	if f.Commit != strings.Repeat("1", 40) || f.File != "conf/app.env" || f.Line != 5 || f.Rule != "aws-access-key-id" {
		t.Errorf("finding %+v, want commit 111…, conf/app.env line 5, aws-access-key-id", f)
	}
	if strings.Contains(f.Masked, awsKey[4:]) || strings.Contains(f.String(), awsKey) {
		t.Errorf("the finding shows the secret: %q", f.String())
	}
}

func TestScanDiffIgnoresRemovedLines(t *testing.T) {
	diff := "commit 2222\ndiff --git a/k b/k\n--- a/k\n+++ b/k\n@@ -1 +0,0 @@\n-AWS=" + awsKey + "\n"
	if found, _ := ScanDiff([]byte(diff), nil); len(found) != 0 {
		t.Errorf("a removed key was found: %v", found)
	}
}

func TestScanDiffAllowFile(t *testing.T) {
	fp := strings.Repeat("1", 40) + ":conf/app.env:aws-access-key-id:5"
	allow := ParseAllow("# test fixture key\n\n" + fp + "\n")
	found, allowed := ScanDiff([]byte(oneCommit), allow)
	if len(found) != 0 || allowed != 1 {
		t.Errorf("with %q allowed: found %v, allowed %d", fp, found, allowed)
	}
	// the same key on another line is another finding
	other := ParseAllow(strings.Repeat("1", 40) + ":conf/app.env:aws-access-key-id:4")
	if found, _ := ScanDiff([]byte(oneCommit), other); len(found) != 1 {
		t.Errorf("an entry for line 4 allowed the key on line 5: %v", found)
	}
}

func TestScanDiffPrivateKey(t *testing.T) {
	diff := "commit 3333\ndiff --git a/id b/id\n+++ b/id\n@@ -0,0 +1,3 @@\n+-----BEGIN RSA PRIVATE KEY-----\n+MIIEow\n+-----END RSA PRIVATE KEY-----\n"
	found, _ := ScanDiff([]byte(diff), nil)
	if len(found) != 1 || found[0].Rule != "private-key" || found[0].Line != 1 {
		t.Errorf("found %v, want the private key at line 1", found)
	}
}

// A huge added line (a minified bundle) is scanned only up to maxScanLine: a key inside
// the first maxScanLine bytes is found, one beyond them is not looked at. (It was a timed
// test, 5 s for a 32 MB line, which a busy machine failed; the bound is what keeps it quick.)
func TestScanDiffHugeLineIsBounded(t *testing.T) {
	key := "ghp_" + strings.Repeat("a1B2", 9)
	line := func(before int) []byte {
		return []byte("commit 4444\ndiff --git a/b.js b/b.js\n+++ b/b.js\n@@ -0,0 +1 @@\n+" +
			strings.Repeat("x", before) + " " + key + " " + strings.Repeat("key=abc ", 4<<20) + "\n")
	}
	if found, _ := ScanDiff(line(maxScanLine/2), nil); len(found) != 1 {
		t.Errorf("a key within the first %d bytes of a 32 MB line: found %v, want it", maxScanLine, found)
	}
	if found, _ := ScanDiff(line(maxScanLine), nil); len(found) != 0 {
		t.Errorf("a key beyond the first %d bytes of a 32 MB line was looked at: found %v", maxScanLine, found)
	}
}
