/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * acis-asm: assembler and disassembler of the look-aside CGRA (FLASH)
 * instruction set, a thin front end of acis_cgra_asm/acis_cgra_disasm.
 *
 *   acis-asm [-o out.bin] prog.s    text to little-endian 32-bit words
 *                                   (default output: prog.bin)
 *   acis-asm -d [-o out.s] prog.bin words to canonical text (default:
 *                                   standard output); as everywhere, a
 *                                   name not ending in .bin is taken as
 *                                   text, which comes out canonical
 *
 * Errors go to standard error as FILE:LINE:COL: error: ...; the exit
 * status is 1 on any error, 2 on bad usage.
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acis_cgra.h"

static void
usage(void)
{
	fprintf(stderr, "usage: acis-asm [-o out.bin] prog.s\n"
		"       acis-asm -d [-o out.s] prog.bin\n");
}

/* prog.s -> prog.bin (the extension replaced or appended) */
static char *
default_output(const char *in)
{
	const char *slash = strrchr(in, '/'), *dot = strrchr(in, '.');
	size_t stem = dot != NULL && (slash == NULL || dot > slash) ?
		      (size_t)(dot - in) : strlen(in);
	char *out = malloc(stem + 5);

	if (out != NULL) {
		memcpy(out, in, stem);
		memcpy(out + stem, ".bin", 5);
	}
	return out;
}

static int
assemble(const char *in, const char *out_path)
{
	char err[PATH_MAX + 256];
	uint32_t *words;
	size_t n, i;
	char *def = NULL;
	FILE *o;
	int rc = 0;

	if (acis_cgra_asm_file(in, &words, &n, err, sizeof(err)) != 0) {
		size_t len = strlen(in);

		fprintf(stderr, "%s\n", err);
		if (len >= 4 && strcmp(in + len - 4, ".bin") == 0 &&
		    strstr(err, "not assembler text") != NULL)
			fprintf(stderr, "acis-asm: %s is a binary program: "
				"acis-asm -d disassembles it\n", in);
		return 1;
	}
	if (out_path == NULL)
		out_path = def = default_output(in);
	o = out_path != NULL ? fopen(out_path, "wb") : NULL;
	if (o == NULL) {
		perror(out_path != NULL ? out_path : "output");
		free(words);
		free(def);
		return 1;
	}
	for (i = 0; i < n && rc == 0; i++) {
		uint8_t b[4] = {
			(uint8_t)words[i], (uint8_t)(words[i] >> 8),
			(uint8_t)(words[i] >> 16), (uint8_t)(words[i] >> 24),
		};

		if (fwrite(b, 1, 4, o) != 4)
			rc = 1;
	}
	if (fclose(o) != 0)
		rc = 1;
	if (rc != 0)
		perror(out_path);
	free(words);
	free(def);
	return rc;
}

static int
disassemble(const char *in, const char *out_path)
{
	char err[PATH_MAX + 256];
	uint32_t *words;
	char *text;
	size_t n;
	FILE *o = stdout;
	int rc = 0;

	if (acis_cgra_read_program(in, &words, &n, err, sizeof(err)) != 0) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	text = acis_cgra_disasm(words, n);
	free(words);
	if (text == NULL) {
		fprintf(stderr, "%s: out of memory\n", in);
		return 1;
	}
	if (out_path != NULL) {
		o = fopen(out_path, "w");
		if (o == NULL) {
			perror(out_path);
			free(text);
			return 1;
		}
	}
	if (fputs(text, o) == EOF)
		rc = 1;
	if (o != stdout) {
		if (fclose(o) != 0)
			rc = 1;
	} else if (fflush(o) != 0) {
		rc = 1;
	}
	if (rc != 0)
		perror(out_path != NULL ? out_path : "stdout");
	free(text);
	return rc;
}

int
main(int argc, char **argv)
{
	const char *out = NULL;
	int c, dis = 0;

	while ((c = getopt(argc, argv, "do:h")) != -1) {
		switch (c) {
		case 'd':
			dis = 1;
			break;
		case 'o':
			out = optarg;
			break;
		case 'h':
			usage();
			return 0;
		default:
			usage();
			return 2;
		}
	}
	if (optind + 1 != argc) {
		usage();
		return 2;
	}
	return dis ? disassemble(argv[optind], out) :
	       assemble(argv[optind], out);
}
