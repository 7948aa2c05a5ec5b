// Runs when the process loads StuntDoubleTesting, before any test: tells StuntDouble how to record a test
// failure, so that problems found by code that does not import StuntDoubleTesting (a late
// `HTTPStubber.enable()`) fail the test that caused them, at the caller's line.
#include "CStuntDoubleTesting.h"

extern void stuntdouble_testing_install_issue_reporter(void);

__attribute__((constructor)) static void stuntdouble_testing_load(void) {
    stuntdouble_testing_install_issue_reporter();
}
