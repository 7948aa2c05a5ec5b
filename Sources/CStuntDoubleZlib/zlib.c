// The module is its header; SwiftPM needs a source file to build a C target.
#include "CStuntDoubleZlib.h"
