// Nothing to import: this module only runs code when the process loads StuntDoubleTesting (see load.c).
