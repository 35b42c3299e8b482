package redact

import (
	"strings"
	"testing"
)

const (
	hexLower = "0123456789abcdef"
	letters  = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	lowerNum = "abcdefghijklmnopqrstuvwxyz0123456789"
	bech32   = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"
)

// vendorKeys are fake tokens in the formats of vendorRules (and the Stripe and GitLab
// forms added to the older rules), each as its service issues it, built at run time.
var vendorKeys = []struct{ kind, key string }{
	{"huggingface-token", "hf_" + random(101, 34, letters)},
	{"huggingface-token", "api_org_" + random(102, 34, letters)},
	{"gitlab-token", "glffct-" + random(103, 20, urlsafe)},
	{"gitlab-token", "GR1348941" + random(104, 20, urlsafe)},
	{"stripe-key", "sk_prod_" + random(105, 24, alnum)},
	{"npm-token", "npm_" + random(106, 36, alnum)},
	{"pypi-token", "pypi-AgEIcHlwaS5vcmc" + random(107, 120, urlsafe)},
	{"pypi-token", "pypi-AgENdGVzdC5weXBpLm9yZw" + random(108, 120, urlsafe)},
	{"rubygems-token", "rubygems_" + random(109, 48, hexLower)},
	{"clojars-token", "CLOJARS_" + random(110, 60, lowerNum)},
	{"sendgrid-key", "SG." + random(111, 22, urlsafe) + "." + random(112, 43, urlsafe)},
	{"sendinblue-key", "xkeysib-" + random(113, 64, hexLower) + "-" + random(114, 16, alnum)},
	{"mailgun-key", "key-" + random(115, 32, hexLower)},
	{"twilio-key", "SK" + random(116, 32, hexLower)},
	{"digitalocean-token", "dop_v1_" + random(117, 64, hexLower)},
	{"digitalocean-token", "doo_v1_" + random(118, 64, hexLower)},
	{"shopify-token", "shpat_" + random(119, 32, hexLower)},
	{"shopify-token", "shpss_" + random(120, 32, hexLower)},
	{"databricks-token", "dapi" + random(121, 32, hexLower)},
	{"linear-key", "lin_api_" + random(122, 40, alnum)},
	{"doppler-token", "dp.pt." + random(123, 43, alnum)},
	{"doppler-token", "dp.st." + random(124, 43, alnum)},
	{"grafana-token", "glc_" + random(125, 60, alnum) + "=="},
	{"grafana-token", "glsa_" + random(126, 32, alnum) + "_" + random(127, 8, hexLower)},
	{"grafana-token", "eyJrIjoi" + random(128, 80, alnum)},
	{"postman-key", "PMAK-" + random(129, 24, hexLower) + "-" + random(130, 34, hexLower)},
	{"age-secret-key", "AGE-SECRET-KEY-1" + random(131, 58, bech32)},
	{"1password-token", "ops_eyJ" + random(132, 300, b64)},
	{"artifactory-key", "AKCp" + random(133, 69, alnum)},
	{"artifactory-key", "cmVmd" + random(134, 59, alnum)},
	{"alibaba-key-id", "LTAI" + random(135, 20, alnum)},
	{"aws-bedrock-key", "ABSK" + random(136, 132, b64)},
	{"azure-client-secret", random(137, 3, alnum) + "8Q~" + random(138, 34, urlsafe)},
	{"dynatrace-token", "dt0c01." + random(139, 24, upper32) + "." + random(140, 64, upper32)},
	{"easypost-key", "EZAK" + random(141, 54, alnum)},
	{"flutterwave-key", "FLWSECK_TEST-" + random(142, 32, hexLower) + "-X"},
	{"flyio-token", "fo1_" + random(143, 43, urlsafe)},
	{"flyio-token", "fm2_" + random(144, 180, b64)},
	{"frameio-token", "fio-u-" + random(145, 64, urlsafe)},
	{"heroku-key", "HRKU-AA" + random(146, 58, urlsafe)},
	{"infracost-key", "ico-" + random(147, 32, alnum)},
	{"notion-token", "ntn_" + random(148, 11, "0123456789") + random(149, 35, alnum)},
	{"openshift-token", "sha256~" + random(150, 43, urlsafe)},
	{"perplexity-key", "pplx-" + random(151, 48, alnum)},
	{"planetscale-token", "pscale_tkn_" + random(152, 43, urlsafe)},
	{"planetscale-token", "pscale_pw_" + random(153, 43, urlsafe)},
	{"prefect-key", "pnu_" + random(154, 36, alnum)},
	{"pulumi-token", "pul-" + random(155, 40, hexLower)},
	{"readme-key", "rdme_" + random(156, 70, lowerNum)},
	{"scalingo-token", "tk-us-" + random(157, 48, urlsafe)},
	{"sentry-token", "sntryu_" + random(158, 64, hexLower)},
	{"sentry-token", "sntrys_eyJpYXQiOjE3MDAwMDAwMDAsInJlZ2lvbl91cmwiOiJodHRwczovL3VzLnNlbnRyeS5pbyJ9_" + random(159, 43, b64)},
	{"settlemint-token", "sm_pat_" + random(160, 16, alnum)},
	{"shippo-token", "shippo_live_" + random(161, 40, hexLower)},
	{"square-token", "sq0atp-" + random(162, 22, urlsafe)},
	{"square-token", "EAAA" + random(163, 60, urlsafe)},
	{"facebook-token", "EAAC" + random(164, 120, alnum)},
	{"vault-token", "hvs." + random(165, 95, urlsafe)},
	{"terraform-token", random(166, 14, alnum) + ".atlasv1." + random(167, 67, urlsafe)},
	{"maxmind-key", random(168, 6, alnum) + "_" + random(169, 29, alnum) + "_mmk"},
	{"adobe-secret", "p8e-" + random(170, 32, alnum)},
	{"duffel-token", "duffel_test_" + random(171, 43, urlsafe)},
	{"harness-key", "pat." + random(172, 22, urlsafe) + "." + random(173, 24, alnum) + "." + random(174, 20, alnum)},
	{"teams-webhook", "contoso.webhook.office.com/webhookb2/" + random(175, 8, hexLower) + "-1234-5678-9abc-" + random(176, 12, hexLower) + "@" + random(177, 8, hexLower) + "-1234-5678-9abc-" + random(178, 12, hexLower) + "/IncomingWebhook/" + random(179, 32, hexLower)},
	{"sourcegraph-token", "sgp_" + random(180, 16, hexLower) + "_" + random(181, 40, hexLower)},
	{"newrelic-key", "NRAK-" + random(182, 27, upper32)},
	{"mapbox-token", "sk.eyJ1IjoiZXhhbXBsZSIsImEiOiJjbGV4YW1wbGUifQ." + random(183, 22, urlsafe)},
	{"typeform-token", "tfp_" + random(184, 59, urlsafe)},
	{"defined-networking-token", "dnkey-" + random(185, 26, alnum) + "-" + random(186, 52, alnum)},
	{"dropbox-token", "sl." + random(187, 140, urlsafe)},
	{"plaid-token", "access-production-" + random(188, 8, hexLower) + "-1a2b-3c4d-5e6f-" + random(189, 12, hexLower)},
}

// Each format is replaced where an agent would print it: alone on a line, assigned in a
// shell, inside a JSON string.
func TestBytesRedactsPrefixedVendorTokens(t *testing.T) {
	for _, v := range vendorKeys {
		t.Run(v.kind, func(t *testing.T) {
			for _, text := range []string{v.key + "\n", "export SERVICE=" + v.key + "\n", `{"text":"found ` + v.key + ` in .env"}`} {
				got := string(Bytes([]byte(text)))
				if strings.Contains(got, v.key) || !strings.Contains(got, Mark(v.kind)) {
					t.Errorf("%q became %q, want the key replaced by %s", text, got, Mark(v.kind))
				}
			}
		})
	}
}

// The prefixes are chosen so that ordinary text keeps them: words, identifiers, hashes,
// base64 and paths that begin as a key does but are none.
func TestVendorPrefixesLeaveOrdinaryTextAlone(t *testing.T) {
	texts := []string{
		"hf_hub_download(repo_id, filename) loads hf_model weights",
		"the Hugging Face token begins with hf_ followed by letters",
		"npm_config_cache=/tmp/npm and npm_lifecycle_event=test",
		"SG.com is no key; nor is SG.short.value",
		"the disk is full: ASK the TASK owner, SKIP the rest",
		"SKU 1234 was TASKED",
		"key-value store: see key-value-pairs-of-every-kind",
		"dapi is the Databricks prefix; dapidapi",
		"dp.pt. is how Doppler personal tokens begin",
		"sha256~ and sha256:" + random(201, 64, hexLower),
		"commit " + random(202, 40, hexLower),
		"sha512-" + random(203, 86, b64) + "==",
		"import hf_utils from './lib/ico-set/pat.js' // sat. sl. pul- rdme_ sgp_",
		"access-production-logs are rotated daily",
		"export LTAI_REGION=cn-hangzhou",
		"favico-" + random(204, 32, alnum),
		"MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAAA" + random(205, 80, b64),
		"The contents of EAAA.txt and EAAC.csv are readable",
		`{"blob":"EAAAAAEAAAAJ` + random(206, 120, alnum) + `=="}`,
		"EAAA" + random(207, 60, alnum) + "+" + random(208, 20, b64),
		"glc_total_count and glsa_metrics are label names",
		"Q~ appears in some filenames: report2Q~draft.txt",
	}
	for _, text := range texts {
		if got := string(Bytes([]byte(text))); got != text {
			t.Errorf("changed %q into %q", text, got)
		}
	}
}
