/* Functions named as bench/gen_edges.py names them (callerN, leafN),
 * for tests/e2e/manystacks.py to make sampled profiles of many stacks
 * of a real binary; never run. */
int leaf0(int x) { return x + 1; }
int leaf1(int x) { return x * 3; }
int leaf2(int x) { return x - 7; }
int caller0(int x) { return leaf0(x); }
int caller1(int x) { return leaf1(x); }
int caller2(int x) { return leaf2(x); }
int caller3(int x) { return caller0(x); }
int caller4(int x) { return caller1(x); }
int caller5(int x) { return caller2(x); }

int main(int argc, char **argv)
{
	(void)argv;
	return caller3(argc) + caller4(argc) + caller5(argc);
}
