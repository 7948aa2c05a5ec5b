// Runs when a test process loads StuntDoubleTesting, before `main` and so before any test or session:
// - tells StuntDouble how to record a test failure, so that problems found by code that does not import
//   StuntDoubleTesting (a late `HTTPStubber.enable()`) fail the test that caused them, at the caller's line;
// - on Linux, registers StuntDouble's global URLProtocol class, which FoundationNetworking copies into
//   URLSession.shared when the process makes its first session: `HTTPStubber.enable()` then reaches
//   URLSession.shared whenever a test calls it. (Apple platforms consult registered classes on every request:
//   there the first `enable()` registers it.)
// StuntDouble itself runs nothing when a process loads it: an app that links it registers nothing.
#include "CStuntDoubleTesting.h"

extern void stuntdouble_testing_load(void);

__attribute__((constructor)) static void stuntdouble_testing_constructor(void) {
    stuntdouble_testing_load();
}
