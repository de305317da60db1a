// es_counts_cxx.cpp - es_counts.c built by mpicxx: a C++ program calls the same C API (the C wrappers, through the
// C++ compiler's linkage); MpiRunTest compares its report with its own counts as for the C program.
#include "es_counts.c"
