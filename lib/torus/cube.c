/* SPDX-License-Identifier: BSD-3-Clause */
/* The online cube multicast and reduction of seed 000 §6.3-6.4: a radius-r
 * cube's multicast tree (Algorithm 2), its reduction wait lists
 * (Algorithm 3) and the destination ids of Eq. 6.1-6.4, computed from a
 * node's place alone (doc/torus-tables.md). */
#include <errno.h>

#include "acis_torus.h"

/* The signed offset from a to b along dimension dim: along a line, b - a;
 * round a ring the shorter way, half way counting + as DOR goes. */
static int
offset(const struct acis_torus *t, unsigned int dim, unsigned int a,
       unsigned int b)
{
	int k = t->k[dim], d = (int)b - (int)a;

	if (t->mesh)
		return d;
	d = (d % k + k) % k;
	return d > k / 2 ? d - k : d;
}

/* How far a radius-r cube reaches from its centre along dim, up (+) and
 * down (-). On a ring shorter than 2r + 1 the cube covers it once:
 * offsets -(k-1)/2 to k/2, the range offset() gives. A mesh's edges clip
 * it by having no link. */
static void
reach(const struct acis_torus *t, unsigned int dim, unsigned int r, int *up,
      int *down)
{
	unsigned int k = t->k[dim];

	*up = (int)r;
	*down = (int)r;
	if (t->mesh)
		return;
	if (*up > (int)(k / 2))
		*up = (int)(k / 2);
	if (*down > (int)((k - 1) / 2))
		*down = (int)((k - 1) / 2);
}

/* The offsets from a to b, and whether b lies in a's radius-r cube. */
static int
in_cube(const struct acis_torus *t, const struct acis_torus_coord *a,
	const struct acis_torus_coord *b, unsigned int r,
	int off[ACIS_TORUS_DIMS])
{
	unsigned int dim;
	int up, down, in = 1;

	for (dim = 0; dim < ACIS_TORUS_DIMS; dim++) {
		off[dim] = offset(t, dim, a->c[dim], b->c[dim]);
		reach(t, dim, r, &up, &down);
		in &= off[dim] <= up && off[dim] >= -down;
	}
	return in;
}

static int
args_valid(const struct acis_torus *t, const struct acis_torus_coord *a,
	   const struct acis_torus_coord *b, unsigned int r)
{
	return r >= 1 && r <= ACIS_TORUS_CUBE_R_MAX &&
	       acis_torus_coord_valid(t, a) && acis_torus_coord_valid(t, b);
}

/* Whether a link leaves c by d. */
static int
has_link(const struct acis_torus *t, const struct acis_torus_coord *c,
	 unsigned int d)
{
	struct acis_torus_coord n = *c;

	return acis_torus_step(t, &n, d) == 0;
}

int
acis_torus_cube_multicast(const struct acis_torus *t,
			  const struct acis_torus_coord *src,
			  const struct acis_torus_coord *cur,
			  unsigned int arrived, unsigned int r, uint8_t *mask)
{
	int off[ACIS_TORUS_DIMS], up, down;
	unsigned int dim, from = ACIS_TORUS_LOCAL, m = 0;

	*mask = 0;
	if (!args_valid(t, src, cur, r))
		return -EINVAL;
	if (!in_cube(t, src, cur, r, off))
		return -ERANGE;
	/* The tree reaches a node along the last dimension it is off the
	 * source in: Z if off in Z, else Y, else X; src is the root. */
	for (dim = 0; dim < ACIS_TORUS_DIMS; dim++)
		if (off[dim] != 0)
			from = acis_torus_dir_make(dim, off[dim] < 0);
	if (arrived != from)
		return -EPROTO;
	/* Algorithm 2: a node moves on along X only on src's X line, along
	 * Y only in src's XY plane, along Z anywhere; outward from src, and
	 * not past the cube's face. */
	for (dim = ACIS_TORUS_DIMS; dim-- > 0;) {
		reach(t, dim, r, &up, &down);
		if (off[dim] >= 0 && off[dim] < up &&
		    has_link(t, cur, acis_torus_dir_make(dim, 0)))
			m |= ACIS_TORUS_DIR_BIT(acis_torus_dir_make(dim, 0));
		if (off[dim] <= 0 && -off[dim] < down &&
		    has_link(t, cur, acis_torus_dir_make(dim, 1)))
			m |= ACIS_TORUS_DIR_BIT(acis_torus_dir_make(dim, 1));
		if (off[dim] != 0)
			break;
	}
	*mask = (uint8_t)m;
	return from != ACIS_TORUS_LOCAL;
}

int
acis_torus_cube_dst_id(const struct acis_torus *t,
		       const struct acis_torus_coord *cur,
		       const struct acis_torus_coord *dst, unsigned int r)
{
	int off[ACIS_TORUS_DIMS], w = 2 * (int)r + 1;

	if (!args_valid(t, cur, dst, r))
		return -EINVAL;
	if (!in_cube(t, cur, dst, r, off))
		return -ERANGE;
	return w * w * (off[2] + (int)r) + w * (off[1] + (int)r) + off[0] +
	       (int)r;
}

int
acis_torus_cube_dst(const struct acis_torus *t,
		    const struct acis_torus_coord *cur, unsigned int r,
		    unsigned int id, struct acis_torus_coord *dst)
{
	unsigned int dim, w = 2 * r + 1, rest = id;
	int x, k;

	if (!args_valid(t, cur, cur, r))
		return -EINVAL;
	if (id >= acis_torus_cube_ids(r))
		return -ERANGE;
	for (dim = 0; dim < ACIS_TORUS_DIMS; dim++, rest /= w) {
		k = t->k[dim];
		x = (int)cur->c[dim] + (int)(rest % w) - (int)r;
		if (!t->mesh)
			x = (x % k + k) % k;
		if (x < 0 || x >= k)
			return -ERANGE;
		dst->c[dim] = (uint8_t)x;
	}
	/* a short ring spells some offsets two ways; the id is one */
	if (acis_torus_cube_dst_id(t, cur, dst, r) != (int)id)
		return -ERANGE;
	return 0;
}

/* The way DOR leaves c for dst: its first dimension still to travel,
 * the shorter way. LOCAL at dst. */
static unsigned int
dor_way(const struct acis_torus *t, const struct acis_torus_coord *c,
	const struct acis_torus_coord *dst)
{
	unsigned int dim;
	int o;

	for (dim = 0; dim < ACIS_TORUS_DIMS; dim++) {
		o = offset(t, dim, c->c[dim], dst->c[dim]);
		if (o != 0)
			return acis_torus_dir_make(dim, o < 0);
	}
	return ACIS_TORUS_LOCAL;
}

int
acis_torus_cube_reduce(const struct acis_torus *t,
		       const struct acis_torus_coord *cur,
		       const struct acis_torus_coord *dst, unsigned int r,
		       uint8_t *wait)
{
	int off[ACIS_TORUS_DIMS];
	unsigned int out, d, dim, cand = 0, m = 0;

	*wait = 0;
	if (!args_valid(t, cur, dst, r))
		return -EINVAL;
	if (!in_cube(t, dst, cur, r, off))
		return -ERANGE;
	out = dor_way(t, cur, dst);
	/* Algorithm 3: packets reach cur along the dimensions it is done
	 * with (both ways) and from behind along the one it travels. */
	for (dim = 0; dim < ACIS_TORUS_DIMS; dim++) {
		if (out != ACIS_TORUS_LOCAL && dim == acis_torus_dir_dim(out)) {
			cand |= ACIS_TORUS_DIR_BIT(
				acis_torus_dir_opposite(out));
			break;
		}
		cand |= ACIS_TORUS_DIR_BIT(acis_torus_dir_make(dim, 0)) |
			ACIS_TORUS_DIR_BIT(acis_torus_dir_make(dim, 1));
	}
	/* ... from those neighbours only that are in the cube and whose
	 * own way leads here: not past the cube's face, and not from the
	 * half-way node of an even ring, which goes round the + way. */
	for (d = ACIS_TORUS_XP; d <= ACIS_TORUS_ZM; d++) {
		struct acis_torus_coord n = *cur;
		int noff[ACIS_TORUS_DIMS];

		if (!(cand & ACIS_TORUS_DIR_BIT(d)) ||
		    acis_torus_step(t, &n, d) != 0)
			continue;
		if (in_cube(t, dst, &n, r, noff) &&
		    dor_way(t, &n, dst) == acis_torus_dir_opposite(d))
			m |= ACIS_TORUS_DIR_BIT(d);
	}
	*wait = (uint8_t)m;
	return (int)out;
}
