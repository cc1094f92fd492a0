// SPDX-License-Identifier: MIT
/*
 * DH-HMAC-CHAP secrets: the DHHC-1 format and the envelope it shares with
 * NVMeTLSkey-1 (CRC-32, strict base64), and key files.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "auth.h"

/* CRC-32 as zlib computes it (reflected 0xedb88320, inverted in and out):
 * the check nvme-cli and the kernel append to a DHHC-1 key. Bitwise: it
 * runs once per key parsed. */
uint32_t nvme_key_crc32(const uint8_t *p, size_t len)
{
	uint32_t crc = 0xffffffffu;

	while (len--) {
		crc ^= *p++;
		for (int i = 0; i < 8; i++)
			crc = (crc >> 1) ^ (0xedb88320u & -(crc & 1));
	}
	return ~crc;
}

static const char b64_chars[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int b64_value(char c)
{
	const char *p = c ? strchr(b64_chars, c) : NULL;

	return p ? (int)(p - b64_chars) : -1;
}

/* Strict standard base64 with '=' padding: len a multiple of 4. Returns
 * the decoded length or -1. */
int nvme_key_b64_decode(const char *s, size_t len, uint8_t *out, size_t cap)
{
	size_t n = 0;

	if (len == 0 || len % 4)
		return -1;
	for (size_t i = 0; i < len; i += 4) {
		int v[4], pad = 0;

		for (int j = 0; j < 4; j++) {
			if (s[i + j] == '=' && i + 4 == len && j >= 2) {
				v[j] = 0;
				pad++;
				continue;
			}
			if (pad) /* "=x" */
				return -1;
			v[j] = b64_value(s[i + j]);
			if (v[j] < 0)
				return -1;
		}
		uint32_t w = (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 |
			     (uint32_t)v[2] << 6 | (uint32_t)v[3];
		/* the bits padding drops must be zero: one encoding per key */
		if ((pad == 2 && (w & 0xffff)) || (pad == 1 && (w & 0xff)))
			return -1;
		if (n + 3 - pad > cap)
			return -1;
		out[n++] = w >> 16;
		if (pad < 2)
			out[n++] = (w >> 8) & 0xff;
		if (pad < 1)
			out[n++] = w & 0xff;
	}
	return (int)n;
}

size_t nvme_key_b64_encode(const uint8_t *in, size_t len, char *out)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i += 3) {
		uint32_t w = (uint32_t)in[i] << 16;
		size_t left = len - i;

		if (left > 1)
			w |= (uint32_t)in[i + 1] << 8;
		if (left > 2)
			w |= in[i + 2];
		out[n++] = b64_chars[(w >> 18) & 63];
		out[n++] = b64_chars[(w >> 12) & 63];
		out[n++] = left > 1 ? b64_chars[(w >> 6) & 63] : '=';
		out[n++] = left > 2 ? b64_chars[w & 63] : '=';
	}
	return n;
}

#define KEY_PREFIX "DHHC-1:"

/* 32, 48 or 64 bytes of key, each hash (HH only says how to transform
 * it), and the CRC */
static bool auth_key_len_ok(unsigned hash, int len)
{
	return len == 36 || len == 52 || len == 68;
}

static const struct nvme_key_format auth_key_format = {
	.prefix = KEY_PREFIX,
	.max_hash = NVME_AUTH_HASH_SHA512,
	.max_len = 64,
	.len_ok = auth_key_len_ok,
	.what = "DH-HMAC-CHAP secret",
	.no_prefix = "not in the DHHC-1:HH:BASE64: format",
	.no_digits = "the transformation hash is not two digits",
	.hash_pre = "transformation hash",
	.hash_post = "is not 00 (none), 01, 02 or 03 (SHA-256/384/512)",
	.no_end = "does not end with ':' after the base64 key",
	.no_base64 = "the key is not valid base64",
	.len_post = "bytes of key and CRC, want 32, 48 or 64 bytes and a "
		    "4-byte CRC",
	.bad_crc = "CRC-32 mismatch (corrupted key)",
};

int nvme_auth_key_parse(const char *str, struct nvme_auth_key *key, char *err,
			size_t errlen)
{
	memset(key, 0, sizeof(*key));
	return nvme_key_envelope_parse(&auth_key_format, str, &key->hash,
				       key->data, &key->len, err, errlen);
}

int nvme_auth_key_format(const struct nvme_auth_key *key, char *out, size_t cap)
{
	if (key->len != 32 && key->len != 48 && key->len != 64)
		return -EINVAL;
	return nvme_key_envelope_format(KEY_PREFIX, key->hash, key->data,
					key->len, out, cap);
}

int nvme_key_file_read(const char *path, const char *what, char *buf,
		       size_t cap, char *err, size_t errlen)
{
	struct stat st;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		n = -errno;
		snprintf(err, errlen, "%s key file %s: %s", what, path,
			 strerror(errno));
		return (int)n;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		snprintf(err, errlen, "%s key file %s: not a regular file",
			 what, path);
		return -EINVAL;
	}
	if (st.st_mode & (S_IRWXG | S_IRWXO)) {
		close(fd);
		snprintf(err, errlen,
			 "%s key file %s: group or others may read "
			 "or write it (mode %04o): chmod 600 it",
			 what, path, (unsigned)(st.st_mode & 07777));
		return -EACCES;
	}
	n = read(fd, buf, cap - 1);
	close(fd);
	if (n < 0) {
		snprintf(err, errlen, "%s key file %s: %s", what, path,
			 strerror(errno));
		return -EIO;
	}
	buf[n] = '\0';
	buf[strcspn(buf, "\r\n")] = '\0';
	return 0;
}

int nvme_key_envelope_parse(const struct nvme_key_format *f, const char *str,
			    uint8_t *hash, uint8_t *key, uint8_t *len,
			    char *err, size_t errlen)
{
	/* the key and its CRC; a longer one fails as bad base64 */
	uint8_t raw[64 + 8];
	const char *b64, *end;
	unsigned hh;
	uint32_t want;
	int n, ret = -EINVAL;

	if (strncmp(str, f->prefix, strlen(f->prefix))) {
		snprintf(err, errlen, "%s: %s", f->what, f->no_prefix);
		return -EINVAL;
	}
	str += strlen(f->prefix);
	if (!((str[0] >= '0' && str[0] <= '9') &&
	      (str[1] >= '0' && str[1] <= '9') && str[2] == ':')) {
		snprintf(err, errlen, "%s: %s", f->what, f->no_digits);
		return -EINVAL;
	}
	hh = (unsigned)(str[0] - '0') * 10 + (unsigned)(str[1] - '0');
	if (hh > f->max_hash) {
		snprintf(err, errlen, "%s: %s %02u %s", f->what, f->hash_pre,
			 hh, f->hash_post);
		return -EINVAL;
	}
	b64 = str + 3;
	end = strchr(b64, ':');
	if (!end || end[1] != '\0') {
		snprintf(err, errlen, "%s: %s", f->what, f->no_end);
		return -EINVAL;
	}
	n = nvme_key_b64_decode(b64, (size_t)(end - b64), raw,
				f->max_len + 8 < sizeof(raw) ? f->max_len + 8 :
							       sizeof(raw));
	if (n < 0) {
		snprintf(err, errlen, "%s: %s", f->what, f->no_base64);
		goto out;
	}
	if (!f->len_ok(hh, n)) {
		snprintf(err, errlen, "%s: %d %s", f->what, n, f->len_post);
		goto out;
	}
	n -= 4;
	want = (uint32_t)raw[n] | (uint32_t)raw[n + 1] << 8 |
	       (uint32_t)raw[n + 2] << 16 | (uint32_t)raw[n + 3] << 24;
	if (nvme_key_crc32(raw, (size_t)n) != want) {
		snprintf(err, errlen, "%s: %s", f->what, f->bad_crc);
		goto out;
	}
	*hash = (uint8_t)hh;
	*len = (uint8_t)n;
	memcpy(key, raw, (size_t)n);
	ret = 0;
out:
	OPENSSL_cleanse(raw, sizeof(raw));
	return ret;
}

int nvme_key_envelope_format(const char *prefix, uint8_t hash,
			     const uint8_t *key, size_t len, char *out,
			     size_t cap)
{
	uint8_t raw[64 + 4];
	uint32_t crc;
	size_t n;

	if (len > 64)
		return -EINVAL;
	/* "PREFIXHH:" + base64 of len + 4 + ":" + NUL */
	if (cap < strlen(prefix) + 3 + (len + 4 + 2) / 3 * 4 + 2)
		return -ENOSPC;
	memcpy(raw, key, len);
	crc = nvme_key_crc32(raw, len);
	for (int i = 0; i < 4; i++)
		raw[len + i] = (uint8_t)(crc >> (8 * i));
	n = (size_t)snprintf(out, cap, "%s%02u:", prefix, hash);
	n += nvme_key_b64_encode(raw, len + 4, out + n);
	out[n++] = ':';
	out[n] = '\0';
	OPENSSL_cleanse(raw, sizeof(raw));
	return 0;
}

int nvme_key_arg_text(const char *arg, const char *what, char *buf, size_t cap,
		      const char **text, char *err, size_t errlen)
{
	int ret = 0;

	*text = arg;
	if (arg[0] == '@') {
		ret = nvme_key_file_read(arg + 1, what, buf, cap, err, errlen);
		*text = buf;
	}
	return ret;
}

int nvme_auth_key_load(const char *arg, struct nvme_auth_key *key, char *err,
		       size_t errlen)
{
	char buf[256];
	const char *text;
	int ret;

	memset(key, 0, sizeof(*key));
	ret = nvme_key_arg_text(arg, "DH-HMAC-CHAP", buf, sizeof(buf), &text,
				err, errlen);
	if (!ret)
		ret = nvme_auth_key_parse(text, key, err, errlen);
	OPENSSL_cleanse(buf, sizeof(buf));
	return ret;
}

void nvme_auth_key_clear(struct nvme_auth_key *key)
{
	OPENSSL_cleanse(key, sizeof(*key));
}
