/* plugin.c - an instrumented plugin that brings the runtime with it
 * (linked with libvigil.so), for a host program that has none. */
__attribute__((noinline)) int plug_inner(int x) { return x + 1; }
int plug(int x) { return plug_inner(x) + plug_inner(x); }
