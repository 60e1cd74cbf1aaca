package templates

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"strings"
	"testing"
)

func TestVendoredECharts(t *testing.T) {
	sum := sha256.Sum256([]byte(EChartsJS))
	if got := hex.EncodeToString(sum[:]); got != EChartsSHA256 {
		t.Errorf("echarts.min.js has SHA-256 %s, want %s (update EChartsSHA256 with the file)", got, EChartsSHA256)
	}
	if !strings.Contains(EChartsJS, `version="`+EChartsVersion+`"`) && !strings.Contains(EChartsJS, `"`+EChartsVersion+`"`) {
		t.Errorf("echarts.min.js does not name version %s", EChartsVersion)
	}
	// Inlined into a <script> element, it must not end it or open a comment.
	low := strings.ToLower(EChartsJS)
	for _, bad := range []string{"</script", "<!--"} {
		if strings.Contains(low, bad) {
			t.Errorf("echarts.min.js holds %q: it cannot be inlined", bad)
		}
	}
	for _, f := range []string{"echarts.LICENSE", "echarts.NOTICE"} {
		b, err := os.ReadFile(f)
		if err != nil || !strings.Contains(string(b), "Apache") {
			t.Errorf("%s: the license files must ship with the script (%v)", f, err)
		}
	}
}

func TestTemplateParts(t *testing.T) {
	for _, want := range []string{"{{.EChartsJS}}", "{{.CSS}}", `{{define "chart"}}`} {
		if !strings.Contains(ReportHTML, want) {
			t.Errorf("report.html.tmpl lacks %s", want)
		}
	}
	if ReportCSS == "" {
		t.Error("report.css is empty")
	}
}
