# lib/sources.mk: the library's sources, listed once. Every Makefile includes this file.
# Each module is lib/ir_<name>.c with its public header lib/ir_<name>.h.
LIB_SRCS := $(sort $(wildcard $(LIBDIR)/ir_*.c))
LIB_HDRS := $(sort $(wildcard $(LIBDIR)/ir_*.h))
