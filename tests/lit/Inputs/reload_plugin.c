/*
 * reload_plugin.c - a plugin built twice under two names (-DENTRY=...
 * -DHELPER=...): the names change the build-id and the symbols, not one
 * byte of the code, so both builds have the same layout and, loaded one
 * after the other, the same addresses.
 */
volatile int plugin_sink;

static __attribute__((noinline)) int HELPER(int x) { return x + 1; }

int ENTRY(int x)
{
	plugin_sink++;
	return HELPER(x);
}
