/*
 * view_names.c - function names that would break out of an HTML page's
 * <script> element if written into it raw (view-names.test): symbols
 * (quoted asm labels; gas takes any byte but a newline or a quote in
 * one) "</script><img/src=x/onerror=window.pwned=1>", called 3 times,
 * "<!--<script>" (a comment start changes how the parser looks for the
 * end tag), called 2 times, and "amp&amp;x" U+2028 "y" U+2029 (an
 * entity, and the two line ends older JavaScript parsers do not take
 * in a string), called once.  main calls them.
 */
volatile int sink;

__attribute__((noinline)) void end_tag(void) __asm__("\"</script><img/src=x/onerror=window.pwned=1>\"");
__attribute__((noinline)) void end_tag(void)
{
	sink++;
}

__attribute__((noinline)) void comment(void) __asm__("\"<!--<script>\"");
__attribute__((noinline)) void comment(void)
{
	sink++;
}

__attribute__((noinline)) void lines(void) __asm__("\"amp&amp;x\xe2\x80\xa8y\xe2\x80\xa9\"");
__attribute__((noinline)) void lines(void)
{
	sink++;
}

int main(void)
{
	for (int i = 0; i < 3; i++)
		end_tag();
	for (int i = 0; i < 2; i++)
		comment();
	lines();
	return 0;
}
