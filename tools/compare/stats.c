// SPDX-License-Identifier: MIT
/*
 * mqblk compare: Welch's t-test (the regularized incomplete beta function
 * for Student's t distribution), with libm only.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../compare.h"
#include "cmp_int.h"
#include "target/config/json.h"

#define LENTZ_TINY 1e-300

/* One step of the modified Lentz method with the fraction's next
 * coefficient num: c and d carried on; returns the factor (d c) the
 * convergent is multiplied by. */
static double lentz_step(double num, double *c, double *d)
{
	*d = 1 + num * *d;
	if (fabs(*d) < LENTZ_TINY)
		*d = LENTZ_TINY;
	*c = 1 + num / *c;
	if (fabs(*c) < LENTZ_TINY)
		*c = LENTZ_TINY;
	*d = 1 / *d;
	return *d * *c;
}

/*
 * The continued fraction of the regularized incomplete beta function
 * I_x(a, b), evaluated by the modified Lentz method. It converges
 * quickly for x < (a + 1) / (a + b + 2); ibeta() uses the symmetry
 * I_x(a, b) = 1 - I_{1-x}(b, a) for the rest.
 */
static double beta_cf(double a, double b, double x)
{
	double c = 1, d, h, num, step;
	int m;

	d = 1 - (a + b) * x / (a + 1);
	if (fabs(d) < LENTZ_TINY)
		d = LENTZ_TINY;
	d = 1 / d;
	h = d;
	for (m = 1; m <= 500; m++) {
		/* even step: m (b - m) x / ((a + 2m - 1)(a + 2m)) */
		num = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
		h *= lentz_step(num, &c, &d);
		/* odd step: -(a + m)(a + b + m) x / ((a + 2m)(a + 2m + 1)) */
		num = -(a + m) * (a + b + m) * x /
		      ((a + 2 * m) * (a + 2 * m + 1));
		step = lentz_step(num, &c, &d);
		h *= step;
		if (fabs(step - 1) < 1e-15)
			break;
	}
	return h;
}

static double ibeta(double a, double b, double x)
{
	double front;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) +
		    b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * beta_cf(a, b, x) / a;
	return 1 - front * beta_cf(b, a, 1 - x) / b;
}

/* P(|T| >= t) for Student's t with df degrees of freedom. */
static double t_two_sided_p(double t, double df)
{
	return ibeta(df / 2, 0.5, df / (df + t * t));
}

double cmp_t_crit95(double df)
{
	double lo = 0, hi = 1, mid;
	int i;

	/* p falls as t grows: bracket 0.05, then bisect */
	while (t_two_sided_p(hi, df) > 0.05 && hi < 1e9)
		hi *= 2;
	for (i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
		mid = (lo + hi) / 2;
		if (t_two_sided_p(mid, df) > 0.05)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

void cmp_mean_var(const double *x, size_t n, double *mean, double *var)
{
	double s = 0, ss = 0;
	size_t i;

	for (i = 0; i < n; i++)
		s += x[i];
	*mean = s / n;
	for (i = 0; i < n; i++)
		ss += (x[i] - *mean) * (x[i] - *mean);
	*var = n > 1 ? ss / (n - 1) : 0;
}

int cmp_welch(const double *a, size_t na, const double *b, size_t nb, double *p)
{
	double ma, va, mb, vb, sa, sb, se2, t, df, den, pv;

	cmp_mean_var(a, na, &ma, &va);
	cmp_mean_var(b, nb, &mb, &vb);
	sa = va / na;
	sb = vb / nb;
	se2 = sa + sb;
	if (!(se2 > 0) || !isfinite(se2)) {
		/* no spread on either side (or beyond double's range):
		 * different means cannot be noise */
		pv = ma == mb ? 1 : 0;
		if (p)
			*p = pv;
		return ma != mb;
	}
	t = (mb - ma) / sqrt(se2);
	/* Welch-Satterthwaite; the largest it can be is na + nb - 2 */
	den = sa * sa / (na - 1) + sb * sb / (nb - 1);
	df = den > 0 ? se2 * se2 / den : NAN;
	if (!isfinite(df) || df > (double)(na + nb - 2))
		df = (double)(na + nb - 2);
	if (df < 1)
		df = 1;
	if (!isfinite(t)) {
		if (p)
			*p = 0;
		return 1;
	}
	if (p)
		*p = t_two_sided_p(t, df);
	return fabs(t) > cmp_t_crit95(df);
}
