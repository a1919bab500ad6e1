#pragma once
// The fixed parts of `servesim report`'s page (sim/report/html_report.cpp): its style, the
// hook that records script errors on the page (<html data-errors>, which the browser test
// reads), and the script that draws the charts from the page's JSON data and marks
// <body data-charts="N" data-rendered="M"> when done.

namespace servesim {

extern const char* const kReportStyle;
extern const char* const kReportErrorHook;
extern const char* const kReportScript;

}  // namespace servesim
