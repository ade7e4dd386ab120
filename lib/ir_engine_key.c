/*
 * ir_engine_key.c: the engine's event loop and queueing again, with the queue
 * ordered by the tie key (IR_TIES_KEY; lib/ir_engine.c says why it is compiled
 * twice).
 */
#define IR_ENGINE_KEYED 1
#include "ir_engine.c"
