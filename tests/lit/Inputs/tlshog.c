/* tlshog.c - a library with 768 bytes of initial-exec TLS, the kind that
 * must come out of the static TLS block's surplus when dlopened. */
__attribute__((tls_model("initial-exec"))) __thread char hog[768];

int tlshog(int i)
{
	hog[i % 768] = (char)i;
	return hog[i % 768];
}
