/* funcs_stub.c - an empty function table for hostile.c's modes that
 * need none. */
typedef void (*fp)(void);
fp fns[1];
int nfns = 0;
