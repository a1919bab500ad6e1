#pragma once
// The fixed parts of `servesim report`'s page (sim/report/html_report.cpp): its style, the
// hook that records script errors on the page (<html data-errors>, which the browser test
// reads), and the script that draws the charts from the page's JSON data. The script comes
// in four parts the page joins inside one function, in this order: the helpers every page
// uses (html_report_page.cpp), the run page (html_report_run_script.cpp), the sweep page
// (html_report_sweep_script.cpp) and the part that draws the page's kind and marks
// <body data-charts="N" data-rendered="M"> when done. Each chart's canvas carries what the
// browser test checks and a reader's tools can read: data-title, data-point-labels (the
// texts drawn beside its points, "|"-separated) and data-slo-lines (the labels of its SLO
// lines).

namespace servesim {

extern const char* const kReportStyle;
extern const char* const kReportErrorHook;
extern const char* const kReportScriptCommon;
extern const char* const kReportScriptRun;
extern const char* const kReportScriptSweep;
extern const char* const kReportScriptMain;

}  // namespace servesim
