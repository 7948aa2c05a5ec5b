// Nothing to import: this module only runs code when the process loads StuntDouble (see load.c).
