// Placeholder until the harness's second step lands.
int main() { return 0; }
