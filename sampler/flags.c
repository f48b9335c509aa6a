/*
 * flags.c - the sampler's command-line flags (--interval, --scan,
 * --frequency, --unwind), parsed once for `vigil attach` and `vigil run`
 * (sampler.h), so that both take the same values and say the same words
 * of a bad one.
 */
#include <errno.h>
#include <stdio.h>

#include "duration.h"
#include "sampler.h"

int sampler_parse_flags(const struct sampler_flags *f,
			struct sampler_config *cfg, char *err, size_t errlen)
{
	char why[SAMPLER_ERR_LEN];

	cfg->interval_ns = 1000000000ull;
	cfg->scan = SAMPLER_SCAN_DEFAULT;
	cfg->frequency = SAMPLER_FREQ_DEFAULT;
	cfg->unwind = SAMPLER_UNWIND_AUTO;
	cfg->stack_copy = 0;
	if (f->interval && (vgl_parse_duration(f->interval, &cfg->interval_ns) ||
			    cfg->interval_ns < SAMPLER_INTERVAL_MIN_NS ||
			    cfg->interval_ns > SAMPLER_INTERVAL_MAX_NS)) {
		snprintf(err, errlen, "bad --interval '%s' (1ms to 24h, like 250ms, 10s, 2m)",
			 f->interval);
		return -EINVAL;
	}
	if (f->scan && sampler_parse_scan(f->scan, &cfg->scan, why,
					  sizeof(why))) {
		snprintf(err, errlen, "bad --scan '%s': %s", f->scan, why);
		return -EINVAL;
	}
	if (f->frequency && sampler_parse_hz(f->frequency, &cfg->frequency)) {
		snprintf(err, errlen, "bad --frequency '%s' (1 to %u Hz)",
			 f->frequency, SAMPLER_FREQ_MAX);
		return -EINVAL;
	}
	if (f->unwind && sampler_parse_unwind(f->unwind, &cfg->unwind,
					      &cfg->stack_copy)) {
		snprintf(err, errlen, "bad --unwind '%s' (auto, dwarf, dwarf,SIZE with SIZE %u to %u bytes, a multiple of 8, or fp)",
			 f->unwind, SAMPLER_STACK_COPY_MIN,
			 SAMPLER_STACK_COPY_MAX);
		return -EINVAL;
	}
	return 0;
}
