// Package templates holds what the HTML report is made of: its html/template,
// its stylesheet, and the echarts script inlined into every page so that it
// opens with no network. It holds no logic; report.WriteHTML fills the
// template. Users may copy report.html.tmpl and point --template at the copy.
package templates

import _ "embed"

// ReportHTML is the html/template of the HTML report (see report.WriteHTML
// for the data it is executed with).
//
//go:embed report.html.tmpl
var ReportHTML string

// ReportCSS is the report's stylesheet, inlined into the page.
//
//go:embed report.css
var ReportCSS string

// EChartsJS is dist/echarts.min.js of the npm package echarts at
// EChartsVersion (Apache-2.0: echarts.LICENSE, echarts.NOTICE).
//
//go:embed echarts.min.js
var EChartsJS string

// EChartsVersion is the vendored echarts release: the 5.x that
// github.com/go-echarts/go-echarts/v2 documents support for.
const EChartsVersion = "5.4.3"

// EChartsSHA256 is the SHA-256 of echarts.min.js as unpacked from the npm
// tarball echarts-5.4.3.tgz (a test checks it).
const EChartsSHA256 = "1156429a16a38cb8604dcc6518c19406d4226142d908f8edd2e3531443c54d19"
