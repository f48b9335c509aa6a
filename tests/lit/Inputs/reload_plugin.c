/*
 * reload_plugin.c - a plugin built twice under two names (-DENTRY=...
 * -DHELPER=...): the names change the build-id and the symbols, not one
 * byte of the code, so both builds have the same layout and, loaded one
 * after the other, the same addresses.  -DFINI adds a destructor that
 * makes one call (reload_race.c).
 */
volatile int plugin_sink;

static __attribute__((noinline)) int HELPER(int x) { return x + 1; }

int ENTRY(int x)
{
	plugin_sink++;
	return HELPER(x);
}

#ifdef FINI
__attribute__((destructor)) static void fini(void)
{
	plugin_sink += HELPER(0);
}
#endif
