// Runs when the process loads StuntDouble, before `main` and so before anything can create a URLSession.
//
// On Linux, FoundationNetworking copies the registered URLProtocol classes into URLSession.shared when it is
// created. Registering StuntDouble's global protocol class here (it declines every request until a stubber is
// enabled) lets `HTTPStubber.enable()` reach URLSession.shared whenever it is called. Apple platforms consult
// registered classes on every request, so there `enable()` registers the class itself.
#include "CStuntDouble.h"

#if !defined(__APPLE__)
extern void stuntdouble_register_global_protocol(void);

__attribute__((constructor)) static void stuntdouble_load(void) {
    stuntdouble_register_global_protocol();
}
#endif
