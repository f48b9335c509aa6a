int step(int x);
int twice(int x);
