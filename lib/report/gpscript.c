/* Escaping for gnuplot scripts and data files (see gpscript.h). */
#include "report/gpscript.h"

#include <math.h>
#include <string.h>

void ab_gp_string(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '\'')
			fputs("''", f);
		else
			fputc(c < 0x20 || c == 0x7f ? '?' : c, f);
	}
	fputc('\'', f);
}

void ab_gp_label(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		char c = *s;
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			 (c && strchr("_.,:;=+-", c));
		fputc(ok ? c : '_', f);
	}
	fputc('"', f);
}

void ab_gp_yrange(FILE *f, double top)
{
	if (!(top > 0) || !isfinite(top)) {
		fputs("set yrange [0:*]\n", f);
		return;
	}
	/* room above the highest bar; 1.7e308 * 1.08 is inf, which gnuplot fails on */
	fprintf(f, "set yrange [0:%.6g]\n", fmin(top * 1.08, AB_GP_YMAX));
}
