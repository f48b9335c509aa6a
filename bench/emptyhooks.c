/*
 * The floor for any -finstrument-functions runtime: hooks that do nothing.
 *
 * Compiled WITHOUT -finstrument-functions and linked into the benchmark
 * (variant "floor") or built into a shared library reached through the PLT
 * (variant "floor-plt").  What remains is the cost the compiler's
 * instrumentation imposes by itself: the two calls, the return-address
 * lookup and the registers saved around them.
 */
void __cyg_profile_func_enter(void *fn, void *site)
{
	(void)fn;
	(void)site;
}

void __cyg_profile_func_exit(void *fn, void *site)
{
	(void)fn;
	(void)site;
}
