// SPDX-License-Identifier: MIT
/*
 * Unit tests of the target's configuration (src/target/config/) and its
 * strict JSON layer on json-c (config/json.c, json_check.c): a file as
 * `nvmetcli save` writes it, every refusal with its message, and the
 * `mqblk target` command line.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "target/config/json.h"
#include "target/target.h"

static char err[512];

/*
 * What nvmetcli 0.8 saves (json.dumps(sort_keys=True, indent=2)) from a
 * 6.x kernel's configfs: the discovery NQN, hosts with their (empty)
 * DH-HMAC-CHAP attributes, ports with tsas, param, ANA groups and a
 * referral, subsystems with every attr_ the kernel has, a disabled
 * passthru, namespaces with ana/resv groups and one disabled. Written
 * by hand from nvmetcli's Root/Port/Subsystem/Namespace/Host.dump():
 * this machine has no nvmet module to save a real one.
 */
static const char nvmetcli_json[] =
	"{\n"
	"  \"discovery\": {\n"
	"    \"nqn\": \"nqn.2014-08.org.nvmexpress.discovery\"\n"
	"  },\n"
	"  \"hosts\": [\n"
	"    {\n"
	"      \"dhchap\": {\n"
	"        \"ctrl_key\": \"\",\n"
	"        \"dhgroup\": \"null\",\n"
	"        \"hash\": \"hmac(sha256)\",\n"
	"        \"key\": \"\"\n"
	"      },\n"
	"      \"nqn\": \"nqn.2014-08.org.nvmexpress:uuid:2b7a4f1e-4a0c-4c47-9d55-0e1b3d7c9a10\"\n"
	"    },\n"
	"    {\n"
	"      \"dhchap\": {\n"
	"        \"ctrl_key\": \"\",\n"
	"        \"dhgroup\": \"null\",\n"
	"        \"hash\": \"hmac(sha256)\",\n"
	"        \"key\": \"\"\n"
	"      },\n"
	"      \"nqn\": \"nqn.2014-08.com.example:host2\"\n"
	"    }\n"
	"  ],\n"
	"  \"ports\": [\n"
	"    {\n"
	"      \"addr\": {\n"
	"        \"adrfam\": \"ipv4\",\n"
	"        \"traddr\": \"127.0.0.1\",\n"
	"        \"treq\": \"not specified\",\n"
	"        \"trsvcid\": \"4420\",\n"
	"        \"trtype\": \"tcp\",\n"
	"        \"tsas\": \"none\"\n"
	"      },\n"
	"      \"ana_groups\": [\n"
	"        {\n"
	"          \"ana\": {\n"
	"            \"state\": \"optimized\"\n"
	"          },\n"
	"          \"grpid\": 1\n"
	"        }\n"
	"      ],\n"
	"      \"param\": {\n"
	"        \"inline_data_size\": \"-1\",\n"
	"        \"max_queue_size\": \"-1\",\n"
	"        \"pi_enable\": \"0\"\n"
	"      },\n"
	"      \"portid\": 1,\n"
	"      \"referrals\": [\n"
	"        {\n"
	"          \"addr\": {\n"
	"            \"adrfam\": \"ipv4\",\n"
	"            \"portid\": \"2\",\n"
	"            \"traddr\": \"10.0.0.2\",\n"
	"            \"treq\": \"not specified\",\n"
	"            \"trsvcid\": \"8009\",\n"
	"            \"trtype\": \"tcp\"\n"
	"          },\n"
	"          \"enable\": 1,\n"
	"          \"name\": \"ref1\"\n"
	"        }\n"
	"      ],\n"
	"      \"subsystems\": [\n"
	"        \"nqn.2014-08.com.example:disk0\",\n"
	"        \"nqn.2014-08.com.example:open\"\n"
	"      ]\n"
	"    },\n"
	"    {\n"
	"      \"addr\": {\n"
	"        \"adrfam\": \"ipv6\",\n"
	"        \"traddr\": \"::1\",\n"
	"        \"treq\": \"not specified\",\n"
	"        \"trsvcid\": \"4421\",\n"
	"        \"trtype\": \"tcp\",\n"
	"        \"tsas\": \"none\"\n"
	"      },\n"
	"      \"ana_groups\": [\n"
	"        {\n"
	"          \"ana\": {\n"
	"            \"state\": \"optimized\"\n"
	"          },\n"
	"          \"grpid\": 1\n"
	"        }\n"
	"      ],\n"
	"      \"param\": {\n"
	"        \"inline_data_size\": \"16384\",\n"
	"        \"max_queue_size\": \"-1\",\n"
	"        \"pi_enable\": \"0\"\n"
	"      },\n"
	"      \"portid\": 2,\n"
	"      \"referrals\": [],\n"
	"      \"subsystems\": [\n"
	"        \"nqn.2014-08.com.example:open\"\n"
	"      ]\n"
	"    }\n"
	"  ],\n"
	"  \"subsystems\": [\n"
	"    {\n"
	"      \"allowed_hosts\": [\n"
	"        \"nqn.2014-08.org.nvmexpress:uuid:2b7a4f1e-4a0c-4c47-9d55-0e1b3d7c9a10\"\n"
	"      ],\n"
	"      \"attr\": {\n"
	"        \"allow_any_host\": \"0\",\n"
	"        \"cntlid_max\": \"100\",\n"
	"        \"cntlid_min\": \"10\",\n"
	"        \"firmware\": \"6.1.0-57\",\n"
	"        \"ieee_oui\": \"0x000000\",\n"
	"        \"model\": \"Linux\",\n"
	"        \"pi_enable\": \"0\",\n"
	"        \"qid_max\": \"128\",\n"
	"        \"serial\": \"8b5c1c8a3c7f2e01\",\n"
	"        \"version\": \"1.3\"\n"
	"      },\n"
	"      \"namespaces\": [\n"
	"        {\n"
	"          \"ana\": {\n"
	"            \"grpid\": \"1\"\n"
	"          },\n"
	"          \"ana_grpid\": 1,\n"
	"          \"device\": {\n"
	"            \"buffered_io\": \"0\",\n"
	"            \"nguid\": \"00000000-0000-0000-0000-000000000000\",\n"
	"            \"path\": \"/dev/shm/disk2.img\",\n"
	"            \"uuid\": \"5b1d7a1c-3e2f-4d6a-9b8c-7d6e5f4a3b2c\"\n"
	"          },\n"
	"          \"enable\": 1,\n"
	"          \"nsid\": 2,\n"
	"          \"resv\": {\n"
	"            \"enable\": \"0\"\n"
	"          }\n"
	"        },\n"
	"        {\n"
	"          \"ana\": {\n"
	"            \"grpid\": \"1\"\n"
	"          },\n"
	"          \"ana_grpid\": 1,\n"
	"          \"device\": {\n"
	"            \"buffered_io\": \"0\",\n"
	"            \"nguid\": \"ef90689c-6c46-d44c-89c1-4067801309a8\",\n"
	"            \"path\": \"/dev/shm/disk1.img\",\n"
	"            \"uuid\": \"d592cdf3-5d1c-44e0-8412-3fcf7d99df27\"\n"
	"          },\n"
	"          \"enable\": 1,\n"
	"          \"nsid\": 1,\n"
	"          \"resv\": {\n"
	"            \"enable\": \"0\"\n"
	"          }\n"
	"        },\n"
	"        {\n"
	"          \"ana\": {\n"
	"            \"grpid\": \"1\"\n"
	"          },\n"
	"          \"ana_grpid\": 1,\n"
	"          \"device\": {\n"
	"            \"buffered_io\": \"0\",\n"
	"            \"nguid\": \"00000000-0000-0000-0000-000000000000\",\n"
	"            \"path\": \"\",\n"
	"            \"uuid\": \"0f3e6d2a-8c1b-4e5f-a7d9-1b2c3d4e5f60\"\n"
	"          },\n"
	"          \"enable\": 0,\n"
	"          \"nsid\": 7,\n"
	"          \"resv\": {\n"
	"            \"enable\": \"0\"\n"
	"          }\n"
	"        }\n"
	"      ],\n"
	"      \"nqn\": \"nqn.2014-08.com.example:disk0\",\n"
	"      \"passthru\": [\n"
	"        {\n"
	"          \"admin_timeout\": 0,\n"
	"          \"clear_ids\": 1,\n"
	"          \"device\": {\n"
	"            \"path\": \"\"\n"
	"          },\n"
	"          \"enable\": 0,\n"
	"          \"io_timeout\": 0\n"
	"        }\n"
	"      ]\n"
	"    },\n"
	"    {\n"
	"      \"allowed_hosts\": [],\n"
	"      \"attr\": {\n"
	"        \"allow_any_host\": \"1\",\n"
	"        \"cntlid_max\": \"65519\",\n"
	"        \"cntlid_min\": \"1\",\n"
	"        \"firmware\": \"6.1.0-57\",\n"
	"        \"ieee_oui\": \"0x000000\",\n"
	"        \"model\": \"Linux\",\n"
	"        \"pi_enable\": \"0\",\n"
	"        \"qid_max\": \"128\",\n"
	"        \"serial\": \"1f3a5c7e9b2d4f60\",\n"
	"        \"version\": \"1.3\"\n"
	"      },\n"
	"      \"namespaces\": [\n"
	"        {\n"
	"          \"ana\": {\n"
	"            \"grpid\": \"1\"\n"
	"          },\n"
	"          \"ana_grpid\": 1,\n"
	"          \"device\": {\n"
	"            \"buffered_io\": \"0\",\n"
	"            \"nguid\": \"00000000-0000-0000-0000-000000000000\",\n"
	"            \"path\": \"null:size=1g\",\n"
	"            \"uuid\": \"9e4c2b1a-7d6f-4e3b-8a2c-5d4e3f2a1b0c\"\n"
	"          },\n"
	"          \"enable\": 1,\n"
	"          \"nsid\": 1,\n"
	"          \"resv\": {\n"
	"            \"enable\": \"0\"\n"
	"          }\n"
	"        }\n"
	"      ],\n"
	"      \"nqn\": \"nqn.2014-08.com.example:open\"\n"
	"    }\n"
	"  ]\n"
	"}\n";

/* nvmetcli's own example (tcp.json in its repository, byte for byte:
 * the older Python's ", " line ends included). */
static const char nvmetcli_tcp_json[] =
	"{\n"
	"  \"hosts\": [], \n"
	"  \"ports\": [\n"
	"    {\n"
	"      \"addr\": {\n"
	"        \"adrfam\": \"ipv4\", \n"
	"        \"traddr\": \"192.168.122.33\", \n"
	"        \"treq\": \"not specified\", \n"
	"        \"trsvcid\": \"4420\", \n"
	"        \"trtype\": \"tcp\"\n"
	"      }, \n"
	"      \"ana_groups\": [\n"
	"        {\n"
	"          \"ana\": {\n"
	"            \"state\": \"optimized\"\n"
	"          }, \n"
	"          \"grpid\": 1\n"
	"        }\n"
	"      ], \n"
	"      \"param\": {\n"
	"        \"inline_data_size\": \"16384\", \n"
	"        \"pi_enable\": \"0\"\n"
	"      }, \n"
	"      \"portid\": 1, \n"
	"      \"referrals\": [], \n"
	"      \"subsystems\": [\n"
	"        \"nvmet-always\"\n"
	"      ]\n"
	"    }\n"
	"  ], \n"
	"  \"subsystems\": [\n"
	"    {\n"
	"      \"allowed_hosts\": [], \n"
	"      \"attr\": {\n"
	"        \"allow_any_host\": \"1\", \n"
	"        \"cntlid_max\": \"65519\", \n"
	"        \"cntlid_min\": \"1\", \n"
	"        \"model\": \"Linux\", \n"
	"        \"pi_enable\": \"0\", \n"
	"        \"serial\": \"123456789abcdef\", \n"
	"        \"version\": \"1.3\"\n"
	"      }, \n"
	"      \"namespaces\": [\n"
	"        {\n"
	"          \"ana_grpid\": 1, \n"
	"          \"device\": {\n"
	"            \"nguid\": \"00000000-0000-0000-0000-000000000000\", \n"
	"            \"path\": \"/dev/nvme0n1\", \n"
	"            \"uuid\": \"d592cdf3-5d1c-44e0-8412-3fcf7d99df27\"\n"
	"          }, \n"
	"          \"enable\": 1, \n"
	"          \"nsid\": 1\n"
	"        }\n"
	"      ], \n"
	"      \"nqn\": \"nvmet-always\"\n"
	"    }\n"
	"  ]\n"
	"}\n";

/* JSON written with ' for " (readable in C); returns a static copy. */
static const char *q(const char *s)
{
	static char buf[8192];
	size_t i;

	assert_true(strlen(s) < sizeof(buf));
	for (i = 0; s[i]; i++)
		buf[i] = s[i] == '\'' ? '"' : s[i];
	buf[i] = 0;
	return buf;
}

static int load(struct tgt *t, const char *json)
{
	memset(t, 0, sizeof(*t));
	memset(err, 0, sizeof(err));
	return tgt_config_load_buf(t, "config.json", json, strlen(json), err,
				   sizeof(err));
}

static void load_ok(struct tgt *t, const char *json)
{
	if (load(t, json))
		fail_msg("refused: %s\n--- input ---\n%s", err, json);
}

/* Must be refused with a one-line message containing want. */
static void load_bad(const char *json, const char *want)
{
	struct tgt t;
	int ret = load(&t, json);

	/* a failed load leaves nothing to free, and free stays safe */
	assert_null(t.ports);
	assert_null(t.subsys);
	assert_false(t.disc.discovery);
	tgt_config_free(&t);
	if (ret != -1)
		fail_msg("accepted, wanted '%s'\n--- input ---\n%s", want,
			 json);
	if (!strstr(err, want))
		fail_msg("error '%s' lacks '%s'", err, want);
	assert_null(strchr(err, '\n'));
}

static void assert_uuid(const uint8_t *b, const char *hex32)
{
	char s[33];
	int i;

	for (i = 0; i < 16; i++)
		snprintf(s + 2 * i, 3, "%02x", b[i]);
	assert_string_equal(s, hex32);
}

/* ---- JSON --------------------------------------------------------------- */

static struct json_object *parse_ok(const char *text)
{
	struct json_object *v;

	if (cj_parse(text, strlen(text), &v, err, sizeof(err)))
		fail_msg("refused: %s\n--- input ---\n%s", err, text);
	return v;
}

static void parse_bad_len(const char *text, size_t len, const char *want)
{
	struct json_object *v = (struct json_object *)&err;

	memset(err, 0, sizeof(err));
	if (!cj_parse(text, len, &v, err, sizeof(err)))
		fail_msg("accepted, wanted '%s': %.*s", want, (int)len, text);
	assert_null(v);
	if (!strstr(err, want))
		fail_msg("error '%s' lacks '%s'", err, want);
	assert_null(strchr(err, '\n'));
}

static void parse_bad(const char *text, const char *want)
{
	parse_bad_len(text, strlen(text), want);
}

static void test_json_values(void **state)
{
	struct json_object *v;
	const struct json_object *a;
	const char *s;
	size_t len;
	int64_t i;
	double d;
	bool b;

	(void)state;
	v = parse_ok(
		q(" {'n': -12, 'f': 1.5e2, 'big': 18446744073709551616,"
		  " 't': true, 'F': false, 'z': null, 'e': [], 'o': {},"
		  " 'a': [1, 'x', [2]], 'min': -9223372036854775808}\r\n"));
	assert_int_equal(cj_type(v), CJ_OBJECT);
	assert_int_equal(cj_count(v), 10);
	assert_int_equal(cj_int(cj_get(v, "n"), &i), 0);
	assert_int_equal(i, -12);
	assert_int_equal(cj_int(cj_get(v, "f"), &i), -1);
	assert_int_equal(cj_num(cj_get(v, "f"), &d), 0);
	assert_true(d == 150.0);
	assert_int_equal(cj_int(cj_get(v, "big"), &i), -1);
	assert_int_equal(cj_int(cj_get(v, "min"), &i), 0);
	assert_true(i == INT64_MIN);
	assert_int_equal(cj_bool(cj_get(v, "t"), &b), 0);
	assert_true(b);
	assert_int_equal(cj_bool(cj_get(v, "F"), &b), 0);
	assert_false(b);
	assert_int_equal(cj_type(cj_get(v, "z")), CJ_NULL);
	assert_non_null(cj_get(v, "z")); /* null, not absent */
	assert_int_equal(cj_count(cj_get(v, "e")), 0);
	assert_int_equal(cj_type(cj_get(v, "o")), CJ_OBJECT);
	assert_null(cj_get(v, "missing"));
	assert_null(cj_get(cj_get(v, "a"), "x")); /* not an object */
	a = cj_get(v, "a");
	assert_int_equal(cj_count(a), 3);
	s = cj_str(cj_at(a, 1), &len);
	assert_string_equal(s, "x");
	assert_int_equal(len, 1);
	assert_int_equal(cj_count(cj_at(a, 2)), 1);
	assert_null(cj_at(a, 3));
	assert_null(cj_str(cj_at(a, 0), NULL));
	/* document order: json-c iterates in insertion order */
	{
		const char *first = NULL, *last = NULL;

		json_object_object_foreach(v, key, val)
		{
			(void)val;
			if (!first)
				first = key;
			last = key;
		}
		assert_string_equal(first, "n");
		assert_string_equal(last, "min");
	}
	cj_free(v);

	v = parse_ok("7");
	assert_int_equal(cj_int(v, &i), 0);
	assert_int_equal(i, 7);
	cj_free(v);
	v = parse_ok("\xef\xbb\xbf\"bom\"");
	assert_string_equal(cj_str(v, NULL), "bom");
	cj_free(v);
	v = parse_ok("-0.0e-5");
	assert_int_equal(cj_type(v), CJ_NUMBER);
	cj_free(v);
}

static void test_json_strings(void **state)
{
	struct json_object *v;
	size_t len;
	const char *s;

	(void)state;
	v = parse_ok("\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\"");
	assert_string_equal(cj_str(v, NULL), "a\"b\\c/d\b\f\n\r\t");
	cj_free(v);
	/* \u to UTF-8: 1, 2, 3 bytes and a surrogate pair (4) */
	v = parse_ok("\"\\u0041\\u00e9\\u20AC\\ud83d\\ude00\"");
	assert_string_equal(cj_str(v, NULL),
			    "A\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
	cj_free(v);
	/* raw UTF-8 passes through */
	v = parse_ok("\"\xc3\xa9\xf0\x9f\x98\x80\"");
	assert_string_equal(cj_str(v, NULL), "\xc3\xa9\xf0\x9f\x98\x80");
	cj_free(v);
	/* \u0000: in the string, counted */
	v = parse_ok("\"a\\u0000b\"");
	s = cj_str(v, &len);
	assert_int_equal(len, 3);
	assert_memory_equal(s, "a\0b", 3);
	cj_free(v);
}

static void test_json_errors(void **state)
{
	char deep[200];
	int i;

	(void)state;
	parse_bad("", "1:1: expected a value, found end of input");
	parse_bad("   ", "1:4: expected a value");
	parse_bad("{\n  \"a\": tru\n}", "2:8: invalid literal (expected true)");
	parse_bad("[1,]", "1:4: expected a value, found ']'");
	parse_bad("{\"a\":1,}", "1:8: expected a string key, found '}'");
	parse_bad("{\"a\" 1}", "expected ':'");
	parse_bad("[1 2]", "expected ',' or ']'");
	parse_bad("{\"a\":1 \"b\":2}", "expected ',' or '}'");
	parse_bad("{'a':1}", "expected a string key, found '''");
	parse_bad("01", "leading zero");
	parse_bad("-", "a number needs a digit");
	parse_bad("1.", "a fraction needs a digit");
	parse_bad("1e+", "an exponent needs a digit");
	parse_bad("+1", "expected a value, found '+'");
	parse_bad("1e999", "number out of range");
	parse_bad("NaN", "expected a value, found 'N'");
	parse_bad("[1] x", "1:5: 'x' after the value");
	parse_bad("\"abc", "unterminated string");
	parse_bad("\"abc\\", "unterminated string");
	parse_bad("\"a\nb\"", "control character 0x0a");
	parse_bad("\"\\x\"", "invalid escape");
	parse_bad("\"\\u12\"", "\\u needs four hex digits");
	parse_bad("\"\\ud800\"", "high surrogate \\ud800 without a low one");
	parse_bad("\"\\ud800\\u0041\"", "without a low one");
	parse_bad("\"\\udc00\"", "lone low surrogate");
	parse_bad("\"\xc0\xaf\"", "invalid UTF-8 byte 0xc0"); /* overlong */
	parse_bad("\"\xed\xa0\x80\"", "invalid UTF-8"); /* surrogate */
	parse_bad("\"\xf4\x90\x80\x80\"", "invalid UTF-8"); /* > 10FFFF */
	parse_bad("\"\xe2\x82\"", "invalid UTF-8"); /* cut short */
	parse_bad("\"\x80\"", "invalid UTF-8");
	parse_bad_len("[1,\0 2]", 7, "byte 0x00");
	parse_bad("{\"a\":1,\"b\":2,\"a\":3}", "1:14: duplicate key \"a\"");
	parse_bad("{\"a\\n\":1,\"a\\u000a\":2}", "duplicate key \"a\\x0a\"");
	/* columns count characters, not bytes */
	parse_bad("[\"\xc3\xa9\xc3\xa9\", x]", "1:8: expected a value");
	for (i = 0; i < 65; i++)
		deep[i] = '[';
	deep[i] = 0;
	parse_bad(deep, "1:65: nested deeper than 64 levels");
	for (i = 0; i < 64; i++) {
		deep[i] = '[';
		deep[64 + i] = ']';
	}
	deep[128] = 0;
	cj_free(parse_ok(deep));
}

/*
 * What json-c's tokener takes even with JSON_TOKENER_STRICT (or changes
 * quietly), each refused or kept exact by the checking pass before it.
 */
static void test_json_stricter_than_jsonc(void **state)
{
	struct json_object *v, *a;
	char deep[700];
	int64_t i;
	double d;
	int k;

	(void)state;
	/* json-c: single quotes, NaN, "1.", "-01" in an array, raw control
	 * characters, lone surrogates (U+FFFD), overlong UTF-8, 1e999 */
	parse_bad("{'a':1}", "1:2: expected a string key, found '''");
	parse_bad("NaN", "1:1: expected a value, found 'N'");
	parse_bad("[1.]", "1:4: a fraction needs a digit");
	parse_bad("[-01]", "1:2: leading zero");
	parse_bad("[\"a\tb\"]", "1:4: control character 0x09");
	parse_bad("[\"\\udc00\"]", "1:3: lone low surrogate \\udc00");
	parse_bad("[\"\xc0\xaf\"]", "1:3: invalid UTF-8 byte 0xc0");
	parse_bad("[1e999]", "1:2: number out of range");
	parse_bad("[1] [2]", "1:5: '[' after the value");
	parse_bad("[/*c*/1]", "1:2: expected a value, found '/'");

	/* json-c keeps the last of duplicate keys: refused, at the second,
	 * however deep, equal once decoded */
	parse_bad("{\"a\":{\"b\":1,\n\"b\":2}}", "2:1: duplicate key \"b\"");
	parse_bad("[{\"x\":1},{\"x\":2,\"\\u0078\":3}]",
		  "1:17: duplicate key \"x\"");
	cj_free(parse_ok("[{\"x\":1},{\"x\":2}]")); /* not across objects */
	/* json-c keys are C strings: \u0000 in a key would cut it */
	parse_bad("{\"a\\u0000b\":1}", "1:2: \\u0000 in a key");

	/* json-c clamps integers to int64/uint64: out of int64 they are
	 * doubles here, not integers */
	v = parse_ok("{\"a\": [18446744073709551616, 9223372036854775808, "
		     "-9223372036854775809, 9223372036854775807, null], "
		     "\"b\": {\"c\": 18446744073709551615}, \"d\": 2}");
	a = cj_get(v, "a");
	assert_int_equal(cj_int(cj_at(a, 0), &i), -1);
	assert_int_equal(cj_num(cj_at(a, 0), &d), 0);
	assert_true(d == 18446744073709551616.0);
	assert_int_equal(cj_int(cj_at(a, 1), &i), -1);
	assert_int_equal(cj_num(cj_at(a, 1), &d), 0);
	assert_true(d == 9223372036854775808.0);
	assert_int_equal(cj_int(cj_at(a, 2), &i), -1);
	assert_int_equal(cj_num(cj_at(a, 2), &d), 0);
	assert_true(d == -9223372036854775808.0);
	assert_int_equal(cj_int(cj_at(a, 3), &i), 0);
	assert_true(i == INT64_MAX);
	assert_int_equal(cj_type(cj_at(a, 4)), CJ_NULL);
	assert_non_null(cj_at(a, 4)); /* null, not absent */
	assert_int_equal(cj_int(cj_get(cj_get(v, "b"), "c"), &i), -1);
	assert_int_equal(cj_int(cj_get(v, "d"), &i), 0);
	assert_int_equal(i, 2);
	cj_free(v);
	v = parse_ok("18446744073709551616"); /* the whole document */
	assert_int_equal(cj_type(v), CJ_NUMBER);
	assert_int_equal(cj_int(v, &i), -1);
	cj_free(v);
	v = parse_ok("null");
	assert_int_equal(cj_type(v), CJ_NULL);
	cj_free(v);

	/* depth: json-c's default tokener stops at 32; ours takes 64
	 * objects deep and refuses 65 */
	for (k = 0; k < 64; k++)
		memcpy(deep + 5 * k, "{\"a\":", 5);
	deep[320] = '1';
	memset(deep + 321, '}', 64);
	deep[385] = 0;
	cj_free(parse_ok(deep));
	memmove(deep + 5, deep, 386);
	memcpy(deep, "{\"a\":", 5);
	deep[391] = '}';
	deep[392] = 0;
	parse_bad(deep, "1:321: nested deeper than 64 levels");

	/* and through the loader: the file name, then line:column */
	load_bad("{\"ports\": [], \"ports\": []}",
		 "config.json:1:15: duplicate key \"ports\"");
	load_bad("{\"ports\": [{\"portid\": 18446744073709551616}]}",
		 "config.json: ports[0].portid: expected an integer");
	load_bad("{\"ports\": null}",
		 "config.json: ports: expected an array, found null");
}

static void test_json_quote(void **state)
{
	char out[16];

	(void)state;
	cj_quote(out, sizeof(out), "ab\"\n", 4);
	assert_string_equal(out, "\"ab\\\"\\x0a\"");
	cj_quote(out, sizeof(out), "0123456789abcdef", 16);
	assert_string_equal(out, "\"0123456789...\"");
	assert_true(strlen(out) < sizeof(out));
}

/* ---- nvmetcli JSON -------------------------------------------------------- */

static void test_nvmetcli_saved(void **state)
{
	struct tgt t;
	struct tgt_subsys *s, *open;
	struct tgt_port *p;
	struct tgt_ns *ns;

	(void)state;
	load_ok(&t, nvmetcli_json);
	assert_int_equal(t.stall_ms, 5000);

	assert_true(t.disc.discovery);
	assert_true(t.disc.allow_any_host);
	assert_string_equal(t.disc.nqn, "nqn.2014-08.org.nvmexpress.discovery");
	assert_true(tgt_host_allowed(&t.disc, "nqn.anyone"));

	assert_int_equal(t.nr_subsys, 2);
	s = t.subsys[0];
	open = t.subsys[1];
	assert_string_equal(s->nqn, "nqn.2014-08.com.example:disk0");
	assert_false(s->discovery);
	assert_false(s->allow_any_host);
	assert_string_equal(s->serial, "8b5c1c8a3c7f2e01");
	assert_string_equal(s->model, "Linux");
	assert_string_equal(s->firmware, "6.1.0-57");
	assert_int_equal(s->cntlid_min, 10);
	assert_int_equal(s->cntlid_max, 100);
	assert_int_equal(s->nr_hosts, 1);
	assert_true(tgt_host_allowed(s,
				     "nqn.2014-08.org.nvmexpress:uuid:"
				     "2b7a4f1e-4a0c-4c47-9d55-0e1b3d7c9a10"));
	assert_false(tgt_host_allowed(s, "nqn.2014-08.com.example:host2"));
	assert_false(tgt_host_allowed(s, NULL));

	/* sorted by nsid; the disabled one kept but not visible */
	assert_int_equal(s->nr_ns, 3);
	assert_int_equal(s->ns[0]->nsid, 1);
	assert_int_equal(s->ns[1]->nsid, 2);
	assert_int_equal(s->ns[2]->nsid, 7);
	ns = s->ns[0];
	assert_string_equal(ns->uri, "/dev/shm/disk1.img");
	assert_true(ns->enabled);
	assert_true(ns->has_uuid);
	assert_uuid(ns->uuid, "d592cdf35d1c44e084123fcf7d99df27");
	assert_true(ns->has_nguid);
	assert_uuid(ns->nguid, "ef90689c6c46d44c89c14067801309a8");
	assert_false(ns->has_eui64);
	assert_false(ns->readonly);
	assert_string_equal(s->ns[1]->uri, "/dev/shm/disk2.img");
	assert_false(s->ns[1]->has_nguid); /* all zero: none, as nvmet */
	/* "-1" (not yet enabled) and "16384": nvmet-tcp's default both */
	for (unsigned i = 0; i < t.nr_ports; i++) {
		assert_int_equal(t.ports[i].inline_data, 16384);
		assert_int_equal(t.ports[i].max_queue_size,
				 TGT_MAX_QUEUE_DEPTH);
	}
	assert_false(s->ns[2]->enabled);
	assert_ptr_equal(tgt_subsys_ns(s, 1), s->ns[0]);
	assert_ptr_equal(tgt_subsys_ns(s, 2), s->ns[1]);
	assert_null(tgt_subsys_ns(s, 7)); /* disabled */
	assert_null(tgt_subsys_ns(s, 3));
	assert_null(tgt_subsys_ns(s, 0));
	assert_null(tgt_subsys_ns(s, 0xffffffff));

	assert_string_equal(open->nqn, "nqn.2014-08.com.example:open");
	assert_true(open->allow_any_host);
	assert_true(tgt_host_allowed(open, "nqn.whoever"));
	assert_int_equal(open->nr_ns, 1);
	assert_string_equal(open->ns[0]->uri, "null:size=1g");

	assert_int_equal(t.nr_ports, 2);
	p = &t.ports[0];
	assert_int_equal(p->portid, 1);
	assert_int_equal(p->adrfam, NVMF_ADDR_FAMILY_IP4);
	assert_string_equal(p->traddr, "127.0.0.1");
	assert_string_equal(p->trsvcid, "4420");
	assert_int_equal(p->trtype, NVMF_TRTYPE_TCP); /* addr.trtype "tcp" */
	assert_false(p->discovery_only);
	assert_int_equal(p->listen_fd, -1);
	assert_int_equal(p->nr_subsys, 2);
	assert_ptr_equal(p->subsys[0], s);
	assert_ptr_equal(p->subsys[1], open);
	p = &t.ports[1];
	assert_int_equal(p->portid, 2);
	assert_int_equal(p->adrfam, NVMF_ADDR_FAMILY_IP6);
	assert_string_equal(p->traddr, "::1");
	assert_string_equal(p->trsvcid, "4421");
	assert_int_equal(p->nr_subsys, 1);
	assert_ptr_equal(p->subsys[0], open);
	assert_int_equal(p->listen_fd, -1);

	tgt_config_free(&t);
	tgt_config_free(&t); /* twice: harmless */
}

static void test_nvmetcli_example(void **state)
{
	struct tgt t;
	struct tgt_subsys *s;

	(void)state;
	load_ok(&t, nvmetcli_tcp_json);
	assert_int_equal(t.nr_subsys, 1);
	s = t.subsys[0];
	assert_string_equal(s->nqn, "nvmet-always"); /* not "nqn.": as nvmet */
	assert_string_equal(s->serial, "123456789abcdef");
	assert_string_equal(s->model, "Linux");
	assert_string_equal(s->firmware, TGT_VERSION);
	assert_int_equal(s->cntlid_min, 1);
	assert_int_equal(s->cntlid_max, 0xffef);
	assert_int_equal(s->nr_ns, 1);
	assert_string_equal(s->ns[0]->uri, "/dev/nvme0n1");
	assert_uuid(s->ns[0]->uuid, "d592cdf35d1c44e084123fcf7d99df27");
	assert_int_equal(t.nr_ports, 1);
	assert_string_equal(t.ports[0].traddr, "192.168.122.33");
	assert_ptr_equal(t.ports[0].subsys[0], s);
	assert_string_equal(t.disc.nqn, NVME_DISC_SUBSYS_NAME);
	tgt_config_free(&t);
}

/* The smallest useful file; defaults filled in. */
static void test_minimal_defaults(void **state)
{
	struct tgt t, t2;
	struct tgt_subsys *s;

	(void)state;
	load_ok(&t, q("{'ports':[{'portid':1,'addr':{'trtype':'tcp',"
		      "'adrfam':'ipv4','traddr':'0.0.0.0','trsvcid':4420},"
		      "'subsystems':['nqn.2024-01.io.mqblk:a']}],"
		      "'subsystems':[{'nqn':'nqn.2024-01.io.mqblk:a',"
		      "'attr':{'allow_any_host':1},'namespaces':["
		      "{'nsid':3,'enable':true,'device':{'path':'null:'}},"
		      "{'nsid':'1','enable':'1','device':{'path':'f',"
		      "'eui64':'0011223344556677','nguid':"
		      "'00112233445566778899aabbccddeeff'}}]}]}"));
	s = t.subsys[0];
	assert_string_equal(s->model, "mqblk");
	assert_string_equal(s->firmware, TGT_VERSION);
	assert_int_equal(strlen(s->serial), 16);
	assert_int_equal(s->cntlid_min, 1);
	assert_int_equal(s->cntlid_max, 0xffef);
	assert_int_equal(s->ns[0]->nsid, 1);
	assert_int_equal(s->ns[1]->nsid, 3);
	assert_true(s->ns[0]->has_eui64);
	assert_memory_equal(s->ns[0]->eui64, "\x00\x11\x22\x33\x44\x55\x66\x77",
			    8);
	assert_true(s->ns[0]->has_nguid);
	assert_int_equal(s->ns[0]->nguid[15], 0xff);
	/* no uuid in the file: derived, stable, a version 8 UUID */
	assert_true(s->ns[1]->has_uuid);
	assert_int_equal(s->ns[1]->uuid[6] >> 4, 8);
	assert_int_equal(s->ns[1]->uuid[8] >> 6, 2);
	assert_int_equal(t.ports[0].trsvcid[0], '4');

	load_ok(&t2, q("{'ports':[{'portid':1,'addr':{'trtype':'tcp',"
		       "'adrfam':'ipv4','traddr':'0.0.0.0','trsvcid':4420}}],"
		       "'subsystems':[{'nqn':'nqn.2024-01.io.mqblk:a',"
		       "'namespaces':[{'nsid':3,'enable':1,"
		       "'device':{'path':'x'}}]}]}"));
	assert_memory_equal(t2.subsys[0]->ns[0]->uuid, s->ns[1]->uuid, 16);
	assert_string_equal(t2.subsys[0]->serial, s->serial);
	/* namespace without "enable": disabled, as nvmet leaves it */
	tgt_config_free(&t2);
	load_ok(&t2, q("{'ports':[{'portid':1,'addr':{'trtype':'tcp',"
		       "'adrfam':'ipv4','traddr':'0.0.0.0','trsvcid':4420}}],"
		       "'subsystems':[{'nqn':'n1','namespaces':[{'nsid':1,"
		       "'device':{'path':'x'}}]}],'discovery':{'nqn':"
		       "'nqn.2024-01.io.mqblk:discovery'}}"));
	assert_false(t2.subsys[0]->ns[0]->enabled);
	assert_null(tgt_subsys_ns(t2.subsys[0], 1));
	assert_string_equal(t2.disc.nqn, "nqn.2024-01.io.mqblk:discovery");
	tgt_config_free(&t2);
	tgt_config_free(&t);
}

#define PORT                                                           \
	"'ports':[{'portid':1,'addr':{'trtype':'tcp','adrfam':'ipv4'," \
	"'traddr':'127.0.0.1','trsvcid':'4420'}}]"
#define SUB(body) "'subsystems':[{'nqn':'nqn.2024-01.io.mqblk:a'" body "}]"
#define NS(body) SUB(",'namespaces':[" body "]")
/* a DHHC-1 secret: bytes 0..31 untransformed, and its CRC */
#define KEY32 "DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:"
#define KEY48 \
	"DHHC-1:02:lVCFqdfo0VZ/tRLHd10ixuXcppe/O0Enmuq7sXAFP5j0lnd3GU2zJVZBIWtrRQuQ9gVKLA==:"

/* nvmetcli's hosts[].dhchap: the keyed host's secrets reach the
 * subsystem that allows it; the other host has none; nvmet's defaults. */
static void test_json_dhchap(void **state)
{
	struct tgt t;
	const struct tgt_host *h;

	load_ok(&t,
		q("{" PORT ",'hosts':[{'nqn':'nqn.h1','dhchap':{'key':'" KEY32
		  "','ctrl_key':'" KEY48 "','hash':'hmac(sha512)',"
		  "'dhgroup':'ffdhe3072,null'}},{'nqn':'nqn.h2','dhchap':"
		  "{'key':'','ctrl_key':'','hash':'hmac(sha256)',"
		  "'dhgroup':'null'}}]," SUB(",'allowed_hosts':['nqn.h1',"
					     "'nqn.h2']") "}"));
	h = tgt_host_find(t.subsys[0], "nqn.h1");
	assert_non_null(h);
	assert_int_equal(h->key.len, 32);
	assert_int_equal(h->key.data[31], 31);
	assert_int_equal(h->ctrl_key.len, 48);
	assert_int_equal(h->ctrl_key.hash, 2);
	assert_int_equal(h->nr_hashes, 1);
	assert_int_equal(h->hashes[0], NVME_AUTH_HASH_SHA512);
	assert_int_equal(h->nr_dhgroups, 2);
	assert_int_equal(h->dhgroups[0], NVME_AUTH_DHGROUP_3072);
	assert_int_equal(h->dhgroups[1], NVME_AUTH_DHGROUP_NULL);
	h = tgt_host_find(t.subsys[0], "nqn.h2");
	assert_non_null(h);
	assert_int_equal(h->key.len, 0);
	assert_int_equal(h->ctrl_key.len, 0);
	assert_null(tgt_host_find(t.subsys[0], "nqn.h3"));
	tgt_config_free(&t);
}

/* nvmetcli's addr.tsas/treq and hosts[].tls_key */
#define TLSKEY \
	"NVMeTLSkey-1:01:LUC8qvJzWf2ypuGvm6NGuF+KI46lNl6edS3g4C7jDjU3I45s:"
#define TLSPORT(treq)                                                      \
	"'ports':[{'portid':1,'addr':{'trtype':'tcp','adrfam':'ipv4',"     \
	"'traddr':'127.0.0.1','trsvcid':'4420','tsas':'tls1.3'" treq "}}," \
	"{'portid':2,'addr':{'trtype':'tcp','adrfam':'ipv4',"              \
	"'traddr':'127.0.0.1','trsvcid':'4421','tsas':'none',"             \
	"'treq':'not specified'}}]"
static void test_json_tls(void **state)
{
	struct tgt t;
	const struct tgt_host *h;

	load_ok(&t,
		q("{" TLSPORT("") ",'hosts':[{'nqn':'nqn.h1','tls_key':'" TLSKEY
				  "'},{'nqn':'nqn.h2','tls_key':"
				  "''}]," SUB(",'allowed_hosts':['nqn.h1',"
					      "'nqn.h2']") "}"));
	assert_int_equal(t.ports[0].sectype, NVMF_TCP_SECTYPE_TLS13);
	/* nvmet's default with TLS: required */
	assert_int_equal(t.ports[0].treq, NVMF_TREQ_REQUIRED);
	assert_int_equal(t.ports[1].sectype, NVMF_TCP_SECTYPE_NONE);
	assert_int_equal(t.ports[1].treq, NVMF_TREQ_NOT_SPECIFIED);
	h = tgt_host_find(t.subsys[0], "nqn.h1");
	assert_int_equal(h->tls_key.len, 32);
	assert_int_equal(h->tls_key.hash, NVME_TLS_HASH_SHA256);
	assert_int_equal(tgt_host_find(t.subsys[0], "nqn.h2")->tls_key.len, 0);
	tgt_config_free(&t);

	load_ok(&t, q("{" TLSPORT(",'treq':'not required'") "}"));
	assert_int_equal(t.ports[0].treq, NVMF_TREQ_NOT_REQUIRED);
	tgt_config_free(&t);
}

static void test_refusals(void **state)
{
	char long_nqn[300], json[1024];

	(void)state;
	/* the example message of the issue, exactly */
	load_bad(q("{" PORT
		   "," NS("{'nsid':1,'enable':1,'device':{'path':'a'}},"
			  "{'nsid':0,'enable':1,'device':{'path':'b'}}") "}"),
		 "config.json: subsystems[0].namespaces[1].nsid: 0 is not a "
		 "valid NSID (1..1024)");
	load_bad(q("{" PORT "," NS("{'nsid':1025}") "}"),
		 "subsystems[0].namespaces[0].nsid: 1025 is not a valid NSID");
	load_bad(q("{" PORT "," NS("{'nsid':-1}") "}"),
		 "namespaces[0].nsid: -1 is out of range");
	load_bad(q("{" PORT "," NS("{'nsid':1.5}") "}"),
		 "namespaces[0].nsid: expected an integer");
	load_bad(q("{" PORT "," NS("{'nsid':'x'}") "}"),
		 "namespaces[0].nsid: \"x\" is not a decimal number");
	load_bad(q("{" PORT "," NS("{'enable':0}") "}"),
		 "subsystems[0].namespaces[0]: missing \"nsid\"");
	load_bad(q("{" PORT
		   "," NS("{'nsid':2,'enable':1,'device':{'path':'a'}},"
			  "{'nsid':2,'enable':1,'device':{'path':'b'}}") "}"),
		 "subsystems[0].namespaces[1].nsid: NSID 2 already used by "
		 "namespaces[0]");
	load_bad(q("{" PORT "," NS("{'nsid':1,'enable':1}") "}"),
		 "namespaces[0]: missing \"device\"");
	load_bad(q("{" PORT
		   "," NS("{'nsid':1,'enable':1,'device':{'path':''}}") "}"),
		 "namespaces[0].device: an enabled namespace needs a \"path\"");
	load_bad(q("{" PORT "," NS("{'nsid':1,'device':{'uuid':'1234'}}") "}"),
		 "namespaces[0].device.uuid: \"1234\" is not a UUID");
	load_bad(q("{" PORT
		   "," NS("{'nsid':1,'device':{'uuid':"
			  "'d592cdf3-5d1c-44e0-8412-3fcf7d99df2g'}}") "}"),
		 "is not a UUID");
	load_bad(q("{" PORT "," NS("{'nsid':1,'device':{'nguid':'0011'}}") "}"),
		 "namespaces[0].device.nguid: \"0011\" is not an NGUID");
	load_bad(q("{" PORT "," NS("{'nsid':1,'device':{'eui64':"
				   "'00112233445566778'}}") "}"),
		 "device.eui64: \"00112233445566778\" is not an EUI-64");
	load_bad(q("{" PORT "," NS("{'nsid':1,'resv':{'enable':'1'}}") "}"),
		 "namespaces[0].resv.enable: persistent reservations are not "
		 "supported");
	load_bad(q("{" PORT "," NS("{'nsid':1,'devices':{}}") "}"),
		 "namespaces[0]: unknown key \"devices\"");

	/* subsystems */
	load_bad(q("{" PORT ",'subsystems':[{'nqn':'a'},{'nqn':'b'},"
		   "{'nqn':'a'}]}"),
		 "subsystems[2].nqn: subsystem \"a\" defined twice");
	load_bad(
		q("{" PORT ",'subsystems':[{'nqn':"
		  "'nqn.2014-08.org.nvmexpress.discovery'}]}"),
		"subsystems[0].nqn: \"nqn.2014-08.org.nvmexpress.discovery\" is "
		"the discovery subsystem's NQN");
	load_bad(q("{" PORT ",'discovery':{'nqn':'nqn.x:disc'},"
		   "'subsystems':[{'nqn':'nqn.x:disc'}]}"),
		 "is the discovery subsystem's NQN");
	memset(long_nqn, 'a', 224);
	memcpy(long_nqn, "nqn.", 4);
	long_nqn[224] = 0;
	snprintf(json, sizeof(json), "{" PORT ",'subsystems':[{'nqn':'%s'}]}",
		 long_nqn);
	load_bad(q(json), "subsystems[0].nqn: \"nqn.aaaaa");
	load_bad(q(json), "NQN longer than 223 bytes");
	long_nqn[223] = 0; /* 223 is fine */
	snprintf(json, sizeof(json), "{" PORT ",'subsystems':[{'nqn':'%s'}]}",
		 long_nqn);
	{
		struct tgt t;

		load_ok(&t, q(json));
		assert_int_equal(strlen(t.subsys[0]->nqn), 223);
		tgt_config_free(&t);
	}
	load_bad(q("{" PORT ",'subsystems':[{'nqn':''}]}"),
		 "subsystems[0].nqn: \"\": empty NQN");
	load_bad(q("{" PORT ",'subsystems':[{'nqn':'a\\u0000b'}]}"),
		 "subsystems[0].nqn: NUL character in a string");
	load_bad(q("{" PORT ",'subsystems':[{'nqn':'a\\tb'}]}"),
		 "control character in NQN");
	load_bad(q("{" PORT ",'subsystems':[{'attr':{}}]}"),
		 "subsystems[0]: missing \"nqn\"");
	load_bad(q("{" PORT ",'subsystems':[{'nqn':5}]}"),
		 "subsystems[0].nqn: expected a string, found number");
	load_bad(q("{" PORT ",'subsystems':{}}"),
		 "config.json: subsystems: expected an array, found object");
	load_bad(q("{" PORT "," SUB(",'attr':{'cntlid_min':'0'}") "}"),
		 "subsystems[0].attr.cntlid_min: \"0\" is out of range "
		 "(1..65519)");
	load_bad(q("{" PORT "," SUB(",'attr':{'cntlid_max':65520}") "}"),
		 "attr.cntlid_max: 65520 is out of range (1..65519)");
	load_bad(q("{" PORT "," SUB(",'attr':{'cntlid_min':'9',"
				    "'cntlid_max':'8'}") "}"),
		 "attr.cntlid_min: 9 is above cntlid_max 8");
	load_bad(q("{" PORT
		   "," SUB(",'attr':{'serial':'123456789012345678901'}") "}"),
		 "attr.serial: longer than 20 bytes");
	load_bad(q("{" PORT "," SUB(",'attr':{'model':'a\\u00e9'}") "}"),
		 "attr.model: not printable ASCII");
	load_bad(q("{" PORT "," SUB(",'attr':{'allow_any_host':'2'}") "}"),
		 "attr.allow_any_host: \"2\" is out of range (0..1)");
	load_bad(q("{" PORT "," SUB(",'attr':{'pi_enable':'1'}") "}"),
		 "attr.pi_enable: protection information is not supported");
	load_bad(q("{" PORT "," SUB(",'passthru':[{'enable':1,"
				    "'device':{'path':'/dev/nvme0'}}]") "}"),
		 "subsystems[0].passthru[0].enable: passthru is not supported");
	load_bad(q("{" PORT "," SUB(",'namespace':[]") "}"),
		 "subsystems[0]: unknown key \"namespace\" (known: nqn, attr, "
		 "namespaces, allowed_hosts, passthru)");

	/* hosts */
	load_bad(q("{" PORT ",'hosts':[{'nqn':'nqn.h1'}]," SUB(
			 ",'allowed_hosts':['nqn.h1','nqn.h2']") "}"),
		 "subsystems[0].allowed_hosts[1]: host \"nqn.h2\" is not "
		 "defined in \"hosts\"");
	load_bad(q("{" PORT ",'hosts':[{'nqn':'nqn.h1'}]," SUB(
			 ",'allowed_hosts':['nqn.h1','nqn.h1']") "}"),
		 "subsystems[0].allowed_hosts[1]: host \"nqn.h1\" listed "
		 "twice");
	load_bad(q("{" PORT ",'hosts':[{'nqn':'nqn.h1'}]," SUB(
			 ",'allowed_hosts':['nqn.h1'],'attr':{'allow_any_host':"
			 "'1'}") "}"),
		 "subsystems[0].allowed_hosts: hosts listed while "
		 "attr.allow_any_host is 1");
	load_bad(q("{" PORT ",'hosts':[{'nqn':'nqn.h1'},{'nqn':'nqn.h2'},"
		   "{'nqn':'nqn.h1'}]}"),
		 "hosts[2].nqn: host \"nqn.h1\" defined twice");
	load_bad(q("{" PORT ",'hosts':[{'nqn':'nqn.h1','dhchap':{'key':"
		   "'DHHC-1:00:abcd:'}}]}"),
		 "hosts[0].dhchap.key: DH-HMAC-CHAP secret: 3 bytes of key "
		 "and CRC");
	load_bad(q("{" PORT ",'hosts':[{'nqn':'nqn.h1','dhchap':{'key':'',"
		   "'ctrl_key':'" KEY32 "'}}]}"),
		 "hosts[0].dhchap.ctrl_key: a controller key without a host "
		 "key");
	load_bad(q("{" PORT ",'hosts':[{'nqn':'nqn.h1','dhchap':{'key':'" KEY32
		   "','dhgroup':'ffdhe1024'}}]}"),
		 "hosts[0].dhchap.dhgroup: unknown DH group \"ffdhe1024\"");
	load_bad(q("{" PORT ",'hosts':[{'nqn':'nqn.h1','dhchap':{'key':'" KEY32
		   "','hash':'hmac(md5)'}}]}"),
		 "hosts[0].dhchap.hash: unknown hash \"hmac(md5)\"");
	load_bad(q("{" PORT
		   ",'hosts':[{'nqn':'nqn.h1','dhchap':{'keys':''}}]}"),
		 "hosts[0].dhchap: unknown key \"keys\"");
	load_bad(q("{" PORT ",'hosts':[{'name':'nqn.h1'}]}"),
		 "hosts[0]: unknown key \"name\"");
	load_bad(q("{" PORT ",'hosts':[{}]}"), "hosts[0]: missing \"nqn\"");

	/* ports */
	/* an rdma port, with its inline data size (and a tcp port on the
	 * same address and service: the RDMA CM's ports are its own) */
	{
		struct tgt t;

		load_ok(&t,
			q("{'ports':[{'portid':1,'addr':{'trtype':'rdma',"
			  "'adrfam':'ipv4','traddr':'1.2.3.4','trsvcid':"
			  "'4420'},'param':{'inline_data_size':'4096'}},"
			  "{'portid':2,'addr':{'trtype':'tcp','adrfam':"
			  "'ipv4','traddr':'1.2.3.4','trsvcid':'4420'}}]}"));
		assert_int_equal(t.ports[0].trtype, NVMF_TRTYPE_RDMA);
		assert_int_equal(t.ports[0].inline_data, 4096);
		assert_int_equal(t.ports[1].trtype, NVMF_TRTYPE_TCP);
		tgt_config_free(&t);
	}
	/* the transport table: tcp and rdma; nvmet's others named */
	load_bad(q("{'ports':[{'portid':1,'addr':{'trtype':'fc',"
		   "'adrfam':'ipv4','traddr':'1.2.3.4','trsvcid':'4420'}}]}"),
		 "ports[0].addr.trtype: transport \"fc\" is not supported "
		 "(only \"tcp\", \"rdma\")");
	load_bad(q("{'ports':[{'portid':1,'addr':{'trtype':'loop',"
		   "'adrfam':'ipv4','traddr':'1.2.3.4','trsvcid':'4420'}}]}"),
		 "transport \"loop\" is not supported "
		 "(only \"tcp\", \"rdma\")");
	load_bad(q("{'ports':[{'portid':1,'addr':{'trtype':'TCP',"
		   "'adrfam':'ipv4','traddr':'1.2.3.4','trsvcid':'4420'}}]}"),
		 "transport \"TCP\" is not supported "
		 "(only \"tcp\", \"rdma\")");
	load_bad(q("{'ports':[{'portid':1,'addr':{'trtype':'tcpx',"
		   "'adrfam':'ipv4','traddr':'1.2.3.4','trsvcid':'4420'}}]}"),
		 "transport \"tcpx\" is not supported "
		 "(only \"tcp\", \"rdma\")");
	load_bad(q("{'ports':[{'portid':1,'addr':{'trtype':'tcp',"
		   "'adrfam':'fc','traddr':'1.2.3.4','trsvcid':'4420'}}]}"),
		 "ports[0].addr.adrfam: address family \"fc\" is not supported "
		 "(ipv4 or ipv6)");
	load_bad(q("{'ports':[{'portid':1,'addr':{'trtype':'tcp',"
		   "'adrfam':'','traddr':'','trsvcid':''}}]}"),
		 "address family \"\" is not supported");
	load_bad(q("{'ports':[{'portid':1,'addr':{'trtype':'tcp',"
		   "'adrfam':'ipv4','traddr':'::1','trsvcid':'4420'}}]}"),
		 "ports[0].addr.traddr: \"::1\" is not an IPv4 address");
	load_bad(q("{'ports':[{'portid':1,'addr':{'trtype':'tcp',"
		   "'adrfam':'ipv6','traddr':'1.2.3.4','trsvcid':'4420'}}]}"),
		 "is not an IPv6 address");
	load_bad(q("{'ports':[{'portid':1,'addr':{'trtype':'tcp',"
		   "'adrfam':'ipv4','traddr':'1.2.3.4','trsvcid':'0'}}]}"),
		 "ports[0].addr.trsvcid: \"0\" is out of range (1..65535)");
	load_bad(q("{'ports':[{'portid':1,'addr':{'trtype':'tcp',"
		   "'adrfam':'ipv4','traddr':'1.2.3.4'}}]}"),
		 "ports[0].addr: missing \"trsvcid\"");
	load_bad(q("{'ports':[{'portid':1,'addr':{'trtype':'tcp',"
		   "'adrfam':'ipv4','traddr':'1.2.3.4','trsvcid':'1',"
		   "'treq':'required'}}]}"),
		 "ports[0].addr.treq: \"required\": a secure channel needs "
		 "tsas \"tls1.3\"");
	load_bad(q("{'ports':[{'portid':1,'addr':{'trtype':'tcp',"
		   "'adrfam':'ipv4','traddr':'1.2.3.4','trsvcid':'1',"
		   "'tsas':'tls1.2'}}]}"),
		 "ports[0].addr.tsas: \"tls1.2\": not a security type (none or "
		 "tls1.3)");
	load_bad(q("{'ports':[{'portid':1,'addr':{'trtype':'tcp',"
		   "'adrfam':'ipv4','traddr':'1.2.3.4','trsvcid':'1',"
		   "'tsas':'tls1.3','treq':'sometimes'}}]}"),
		 "ports[0].addr.treq: \"sometimes\": not a secure channel "
		 "requirement");
	load_bad(q("{" PORT ",'hosts':[{'nqn':'nqn.h1','tls_key':"
		   "'NVMeTLSkey-1:01:AAAA:'}]}"),
		 "hosts[0].tls_key: TLS PSK: 3 bytes of key and CRC");
	load_bad(q("{'ports':[{'portid':70000,'addr':{}}]}"),
		 "ports[0].portid: 70000 is out of range (0..65535)");
	load_bad(q("{'ports':[{'addr':{}}]}"), "ports[0]: missing \"portid\"");
	load_bad(q("{'ports':[{'portid':1,'addr':{'trtype':'tcp',"
		   "'adrfam':'ipv4','traddr':'1.2.3.4','trsvcid':'1'},"
		   "'param':{'pi_enable':'1'}}]}"),
		 "ports[0].param.pi_enable: protection information is not "
		 "supported");
	load_bad(q("{'ports':[{'portid':1,'addr':{'trtype':'tcp',"
		   "'adrfam':'ipv4','traddr':'1.2.3.4','trsvcid':'1'},"
		   "'param':{'inline_data_size':'131073'}}]}"),
		 "ports[0].param.inline_data_size: \"131073\" is out of range "
		 "(0..131072)");
	load_bad(q("{'ports':[{'portid':1,'addr':{'trtype':'tcp',"
		   "'adrfam':'ipv4','traddr':'1.2.3.4','trsvcid':'1'},"
		   "'param':{'max_queue_size':8}}]}"),
		 "ports[0].param.max_queue_size: 8 is out of range (16..1024)");
	load_bad(q("{'ports':[{'portid':1,'addr':{'trtype':'tcp',"
		   "'adrfam':'ipv4','traddr':'1.2.3.4','trsvcid':'1'},"
		   "'param':{'inline_size':'4096'}}]}"),
		 "ports[0].param: unknown key \"inline_size\"");
	load_bad(q("{'ports':[{'portid':1,'addr':{'trtype':'tcp',"
		   "'adrfam':'ipv4','traddr':'1.2.3.4','trsvcid':'1'},"
		   "'referrals':{}}]}"),
		 "ports[0].referrals: expected an array, found object");
	load_bad(
		q("{'ports':[{'portid':1,'addr':{'trtype':'tcp',"
		  "'adrfam':'ipv4','traddr':'1.2.3.4','trsvcid':'1'},"
		  "'subsystems':['nqn.nope']}]}"),
		"ports[0].subsystems[0]: subsystem \"nqn.nope\" is not defined "
		"in \"subsystems\"");
	load_bad(q("{'ports':[{'portid':1,'addr':{'trtype':'tcp',"
		   "'adrfam':'ipv4','traddr':'1.2.3.4','trsvcid':'1'},"
		   "'subsystems':['nqn.2014-08.org.nvmexpress.discovery']}]}"),
		 "is not defined in \"subsystems\"");
	load_bad(q("{'ports':[{'portid':1,'addr':{'trtype':'tcp',"
		   "'adrfam':'ipv4','traddr':'1.2.3.4','trsvcid':'1'},"
		   "'subsystems':['nqn.2024-01.io.mqblk:a',"
		   "'nqn.2024-01.io.mqblk:a']}]," SUB("") "}"),
		 "ports[0].subsystems[1]: subsystem "
		 "\"nqn.2024-01.io.mqblk:a\" linked twice");
	load_bad(q("{'ports':[{'portid':1,'addr':{'trtype':'tcp',"
		   "'adrfam':'ipv4','traddr':'1.2.3.4','trsvcid':'1'}},"
		   "{'portid':2,'addr':{'trtype':'tcp',"
		   "'adrfam':'ipv4','traddr':'1.2.3.5','trsvcid':'1'}},"
		   "{'portid':1,'addr':{'trtype':'tcp',"
		   "'adrfam':'ipv4','traddr':'1.2.3.6','trsvcid':'1'}}]}"),
		 "ports[2].portid: port 1 already defined by ports[0]");
	load_bad(q("{'ports':[{'portid':1,'addr':{'trtype':'tcp',"
		   "'adrfam':'ipv4','traddr':'1.2.3.4','trsvcid':'1'}},"
		   "{'portid':2,'addr':{'trtype':'tcp',"
		   "'adrfam':'ipv4','traddr':'1.2.3.4','trsvcid':'01'}}]}"),
		 "ports[1].addr: 1.2.3.4 port 1 already used by ports[0]");
	load_bad(q("{'ports':[{'portid':1,'addr':{'trtype':'tcp',"
		   "'adrfam':'ipv4','traddr':'1.2.3.4','trsvcid':'1'},"
		   "'param':{},'extra':1}]}"),
		 "ports[0]: unknown key \"extra\" (known: portid, addr, param, "
		 "subsystems, referrals, ana_groups)");

	/* the top level */
	load_bad(q("{" PORT ",'subsystem':[]}"),
		 "config.json: unknown key \"subsystem\" (known: discovery, "
		 "hosts, ports, subsystems)");
	load_bad(q("{'hosts':[],'subsystems':[]}"),
		 "config.json: no ports: nothing to listen on");
	load_bad(q("{'ports':[]}"), "no ports");
	load_bad("[]", "config.json: expected an object at the top, found "
		       "array");
	load_bad("{\n  \"ports\": [\n    {,\n", "config.json:3:6: expected a "
						"string key, found ','");
	load_bad("", "config.json:1:1: expected a value");
	load_bad(q("{" PORT ",'discovery':{'nqn':''}}"),
		 "discovery.nqn: \"\": empty NQN");
}

static void test_load_file(void **state)
{
	char path[] = "/tmp/mqblk-config-XXXXXX";
	struct tgt t;
	FILE *f;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs(nvmetcli_json, f);
	fclose(f);

	memset(&t, 0, sizeof(t));
	t.nr_reactors = 3; /* run options survive a load */
	t.stall_ms = 42;
	assert_int_equal(tgt_config_load(&t, path, err, sizeof(err)), 0);
	assert_int_equal(t.nr_subsys, 2);
	assert_int_equal(t.nr_reactors, 3);
	assert_int_equal(t.stall_ms, 42);
	tgt_config_free(&t);

	unlink(path);
	memset(&t, 0, sizeof(t));
	assert_int_equal(tgt_config_load(&t, path, err, sizeof(err)), -1);
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, "No such file or directory"));
	tgt_config_free(&t);

	/* a zeroed struct frees to nothing */
	memset(&t, 0, sizeof(t));
	tgt_config_free(&t);
}

/* ---- Command line ---------------------------------------------------------- */

#define MAX_ARGS 32

/* argv from a space-separated line (no quoting needed in these tests). */
static int args(struct tgt *t, const char *line)
{
	static char buf[1024];
	char *argv[MAX_ARGS], *p, *save = NULL;
	int argc = 0;

	snprintf(buf, sizeof(buf), "%s", line);
	for (p = strtok_r(buf, " ", &save); p; p = strtok_r(NULL, " ", &save)) {
		assert_true(argc < MAX_ARGS - 1);
		argv[argc++] = p;
	}
	argv[argc] = NULL;
	memset(t, 0xa5, sizeof(*t)); /* args must not trust what t held */
	memset(err, 0, sizeof(err));
	return tgt_config_args(t, argc, argv, err, sizeof(err));
}

static void args_ok(struct tgt *t, const char *line)
{
	if (args(t, line))
		fail_msg("refused: %s\n--- line ---\n%s", err, line);
}

static void args_bad(const char *line, const char *want)
{
	struct tgt t;
	int ret = args(&t, line);

	assert_null(t.ports);
	assert_null(t.subsys);
	assert_null(t.stats_path);
	tgt_config_free(&t);
	if (ret != -1)
		fail_msg("accepted, wanted '%s'\n--- line ---\n%s", want, line);
	if (!strstr(err, want))
		fail_msg("error '%s' lacks '%s'", err, want);
	assert_null(strchr(err, '\n'));
}

/* --listen tls:, --tls-key after the --allow-host it is for */
static void test_args_tls(void **state)
{
	struct tgt t;

	args_ok(&t,
		"target --listen tls:127.0.0.1:4420 --listen "
		"127.0.0.1:4421 --nqn nqn.2024-01.x:y --ns null:size=1m "
		"--allow-host nqn.h0 --allow-host nqn.h1 --tls-key " TLSKEY);
	assert_int_equal(t.ports[0].trtype, NVMF_TRTYPE_TCP);
	assert_int_equal(t.ports[0].sectype, NVMF_TCP_SECTYPE_TLS13);
	assert_int_equal(t.ports[0].treq, NVMF_TREQ_REQUIRED);
	assert_string_equal(t.ports[0].trsvcid, "4420");
	assert_int_equal(t.ports[1].sectype, NVMF_TCP_SECTYPE_NONE);
	assert_int_equal(tgt_host_find(t.subsys[0], "nqn.h0")->tls_key.len, 0);
	assert_int_equal(tgt_host_find(t.subsys[0], "nqn.h1")->tls_key.len, 32);
	tgt_config_free(&t);
	args_bad("target --listen tls:127.0.0.1:4420 --nqn nqn.2024-01.x:y "
		 "--ns a --tls-key " TLSKEY " --allow-host nqn.h1",
		 "--tls-key must follow the --allow-host it is for");
	args_bad("target --listen tls:127.0.0.1:4420 --nqn nqn.2024-01.x:y "
		 "--ns a --allow-host nqn.h1 --tls-key " TLSKEY
		 " --tls-key " TLSKEY,
		 "--tls-key given twice for host \"nqn.h1\"");
	args_bad("target --listen tls:127.0.0.1:4420 --nqn nqn.2024-01.x:y "
		 "--ns a --allow-host nqn.h1 --tls-key " KEY32,
		 "--tls-key (host nqn.h1): TLS PSK: not in the "
		 "NVMeTLSkey-1:HH:BASE64: format");
}

/* --dhchap-* after the --allow-host they are for */
static void test_args_dhchap(void **state)
{
	struct tgt t;
	const struct tgt_host *h;

	args_ok(&t, "target --listen 127.0.0.1:4420 --nqn nqn.2024-01.x:y "
		    "--ns null:size=1m --allow-host nqn.h0 --allow-host nqn.h1 "
		    "--dhchap-key " KEY32 " --dhchap-hash sha384,sha256 "
		    "--dhchap-dhgroup ffdhe2048");
	assert_int_equal(tgt_host_find(t.subsys[0], "nqn.h0")->key.len, 0);
	h = tgt_host_find(t.subsys[0], "nqn.h1");
	assert_int_equal(h->key.len, 32);
	assert_int_equal(h->ctrl_key.len, 0);
	assert_int_equal(h->nr_hashes, 2);
	assert_int_equal(h->hashes[0], NVME_AUTH_HASH_SHA384);
	assert_int_equal(h->dhgroups[0], NVME_AUTH_DHGROUP_2048);
	assert_int_equal(h->nr_dhgroups, 1);
	tgt_config_free(&t);
	{
		char *json = NULL;

		/* the host defined (t->hosts, as ctl add-host makes it) with
		 * another hash list than the subsystem's copy: nvmetcli's
		 * JSON has one dhchap per host, so save refuses, naming it */
		args_ok(&t, "target --listen 127.0.0.1:4420 --nqn nqn.s1 "
			    "--ns null:size=1m --allow-host nqn.h1 "
			    "--dhchap-key " KEY32 " --dhchap-hash sha256");
		t.hosts = calloc(1, sizeof(*t.hosts));
		assert_non_null(t.hosts);
		t.hosts[0] = *tgt_host_find(t.subsys[0], "nqn.h1");
		t.hosts[0].hashes[0] = NVME_AUTH_HASH_SHA512;
		t.nr_hosts = 1;
		memset(err, 0, sizeof(err));
		assert_int_equal(
			tgt_config_to_json(&t, &json, err, sizeof(err)), -1);
		assert_null(json);
		assert_non_null(strstr(err, "host nqn.h1 has two different "
					    "DH-HMAC-CHAP settings"));
		tgt_config_free(&t);
	}
	args_bad("target --listen 127.0.0.1:4420 --nqn nqn.2024-01.x:y --ns a "
		 "--dhchap-key " KEY32 " --allow-host nqn.h1",
		 "--dhchap-key must follow the --allow-host it is for");
	args_bad("target --listen 127.0.0.1:4420 --nqn nqn.2024-01.x:y --ns a "
		 "--allow-host nqn.h1 --dhchap-key " KEY32
		 " --dhchap-key " KEY32,
		 "--dhchap-key given twice for host \"nqn.h1\"");
	args_bad("target --listen 127.0.0.1:4420 --nqn nqn.2024-01.x:y --ns a "
		 "--allow-host nqn.h1 --dhchap-key DHHC-1:00:AAAA:",
		 "--dhchap-key (host nqn.h1): DH-HMAC-CHAP secret: 3 bytes");
	args_bad("target --listen 127.0.0.1:4420 --nqn nqn.2024-01.x:y --ns a "
		 "--allow-host nqn.h1 --dhchap-ctrl-key " KEY32,
		 "without its --dhchap-key");
	args_bad("target --listen 127.0.0.1:4420 --nqn nqn.2024-01.x:y --ns a "
		 "--allow-host nqn.h1 --dhchap-key " KEY32
		 " --dhchap-hash sha256,sha256",
		 "hash \"sha256\" listed twice");
	args_bad("target --config x.json --dhchap-key " KEY32,
		 "--dhchap-key must follow");
}

/* The issue's form, as typed. */
static void test_args_issue_form(void **state)
{
	struct tgt t;
	struct tgt_subsys *s;
	struct tgt_port *p;

	(void)state;
	args_ok(&t, "target --listen 127.0.0.1:4420 --nqn "
		    "nqn.2014-08.org.example:disk --ns /dev/shm/a.img "
		    "--ns null:size=1g --allow-host nqn.2014-08.org.example:h1 "
		    "--allow-host nqn.2014-08.org.example:h2 "
		    "--discovery-port 8009");
	assert_int_equal(t.stall_ms, 5000);
	assert_int_equal(t.nr_reactors, 0);
	assert_null(t.stats_path);
	assert_false(t.verbose);
	assert_true(t.disc.discovery);
	assert_string_equal(t.disc.nqn, NVME_DISC_SUBSYS_NAME);

	assert_int_equal(t.nr_subsys, 1);
	s = t.subsys[0];
	assert_string_equal(s->nqn, "nqn.2014-08.org.example:disk");
	assert_false(s->allow_any_host);
	assert_int_equal(s->nr_hosts, 2);
	assert_true(tgt_host_allowed(s, "nqn.2014-08.org.example:h1"));
	assert_true(tgt_host_allowed(s, "nqn.2014-08.org.example:h2"));
	assert_false(tgt_host_allowed(s, "nqn.2014-08.org.example:h3"));
	assert_string_equal(s->model, "mqblk");
	assert_string_equal(s->firmware, TGT_VERSION);
	assert_int_equal(strlen(s->serial), 16);
	assert_int_equal(s->cntlid_min, 1);
	assert_int_equal(s->cntlid_max, 0xffef);
	assert_int_equal(s->nr_ns, 2);
	assert_int_equal(s->ns[0]->nsid, 1);
	assert_string_equal(s->ns[0]->uri, "/dev/shm/a.img");
	assert_int_equal(s->ns[1]->nsid, 2);
	assert_string_equal(s->ns[1]->uri, "null:size=1g");
	assert_true(s->ns[0]->enabled && s->ns[1]->enabled);
	assert_true(s->ns[0]->has_uuid && s->ns[0]->has_nguid);
	assert_memory_not_equal(s->ns[0]->uuid, s->ns[1]->uuid, 16);
	assert_memory_not_equal(s->ns[0]->nguid, s->ns[1]->nguid, 16);
	assert_ptr_equal(tgt_subsys_ns(s, 2), s->ns[1]);

	assert_int_equal(t.nr_ports, 2);
	p = &t.ports[0];
	assert_int_equal(p->portid, 1);
	assert_int_equal(p->adrfam, NVMF_ADDR_FAMILY_IP4);
	assert_string_equal(p->traddr, "127.0.0.1");
	assert_string_equal(p->trsvcid, "4420");
	assert_false(p->discovery_only);
	assert_int_equal(p->nr_subsys, 1);
	assert_ptr_equal(p->subsys[0], s);
	assert_int_equal(p->listen_fd, -1);
	assert_int_equal(p->inline_data, TGT_INLINE_DATA);
	assert_int_equal(p->max_queue_size, TGT_MAX_QUEUE_DEPTH);
	assert_int_equal(p->trtype, NVMF_TRTYPE_TCP); /* from the table */
	p = &t.ports[1];
	assert_true(p->discovery_only);
	assert_string_equal(p->traddr, "127.0.0.1");
	assert_string_equal(p->trsvcid, "8009");
	assert_int_equal(p->trtype, NVMF_TRTYPE_TCP);
	assert_int_equal(p->nr_subsys, 0);
	assert_int_equal(p->listen_fd, -1);
	assert_int_not_equal(p->portid, t.ports[0].portid);
	tgt_config_free(&t);
}

/* The same names give the same IDs on every start. */
static void test_args_stable_ids(void **state)
{
	struct tgt a, b;

	(void)state;
	args_ok(&a, "target --listen 127.0.0.1:4420 --nqn nqn.2024-01.x:y "
		    "--ns a --ns b --allow-any-host");
	args_ok(&b, "target --ns=c --ns=d --nqn=nqn.2024-01.x:y "
		    "--listen=127.0.0.1:4421");
	assert_memory_equal(a.subsys[0]->ns[1]->uuid, b.subsys[0]->ns[1]->uuid,
			    16);
	assert_memory_equal(a.subsys[0]->ns[1]->nguid,
			    b.subsys[0]->ns[1]->nguid, 16);
	assert_string_equal(a.subsys[0]->serial, b.subsys[0]->serial);
	assert_int_equal(a.subsys[0]->ns[0]->uuid[6] >> 4, 8);
	assert_true(a.subsys[0]->allow_any_host);
	assert_false(b.subsys[0]->allow_any_host);
	assert_int_equal(b.subsys[0]->nr_hosts, 0);
	assert_false(tgt_host_allowed(b.subsys[0], "nqn.2024-01.x:h"));
	assert_int_equal(b.nr_ports, 1);
	tgt_config_free(&a);
	/* another subsystem: other IDs */
	args_ok(&a, "target --listen 127.0.0.1:4420 --nqn nqn.2024-01.x:z "
		    "--ns a --ns b");
	assert_memory_not_equal(a.subsys[0]->ns[1]->uuid,
				b.subsys[0]->ns[1]->uuid, 16);
	assert_string_not_equal(a.subsys[0]->serial, b.subsys[0]->serial);
	tgt_config_free(&a);
	tgt_config_free(&b);
}

static void test_args_forms(void **state)
{
	struct tgt t;

	(void)state;
	args_ok(&t, "target --listen=[::1]:4420 --nqn nqn.2024-01.x:y --ns a "
		    "--reactors=4 --stall-ms 250 --stats-socket=/tmp/s.sock -v "
		    "--discovery-port=8009");
	assert_int_equal(t.ports[0].adrfam, NVMF_ADDR_FAMILY_IP6);
	assert_string_equal(t.ports[0].traddr, "::1");
	assert_string_equal(t.ports[0].trsvcid, "4420");
	assert_int_equal(t.ports[1].adrfam, NVMF_ADDR_FAMILY_IP6);
	assert_string_equal(t.ports[1].traddr, "::1");
	assert_int_equal(t.nr_reactors, 4);
	assert_int_equal(t.stall_ms, 250);
	assert_string_equal(t.stats_path, "/tmp/s.sock");
	assert_true(t.verbose);
	tgt_config_free(&t);

	args_ok(&t, "target --listen [fe80::1:2]:65535 --nqn "
		    "nqn.2014-08.org.nvmexpress:uuid:"
		    "2b7a4f1e-4a0c-4c47-9d55-0e1b3d7c9a10 --ns a --verbose "
		    "--reactors 0");
	assert_string_equal(t.ports[0].traddr, "fe80::1:2");
	assert_string_equal(t.ports[0].trsvcid, "65535");
	assert_true(t.verbose);
	tgt_config_free(&t);
	args_ok(&t, "target --listen 0.0.0.0:1 --nqn nqn.a --ns a");
	tgt_config_free(&t);
}

static void test_args_help(void **state)
{
	struct tgt t;

	(void)state;
	assert_int_equal(args(&t, "target --help"), 1);
	assert_null(t.ports);
	tgt_config_free(&t);
	assert_int_equal(args(&t, "target --listen 1.2.3.4:1 -h"), 1);
	tgt_config_free(&t);
}

/* What getopt_long brings: unambiguous prefixes, clustered short
 * options, "--" ending the options; each refusal still one line. */
static void test_args_getopt(void **state)
{
	struct tgt t;

	(void)state;
	args_ok(&t, "target --lis 1.2.3.4:5 --nq nqn.a --ns a -vv "
		    "--reac=3 --allow-any");
	assert_int_equal(t.nr_ports, 1);
	assert_string_equal(t.subsys[0]->nqn, "nqn.a");
	assert_int_equal(t.nr_reactors, 3);
	assert_true(t.verbose);
	assert_true(t.subsys[0]->allow_any_host);
	tgt_config_free(&t);
	args_bad("target --an 1:1=optimized",
		 "ambiguous option \"--an\" (--ana-group, --ana, --anatt)");
	args_bad("target --allow 1", "ambiguous option \"--allow\"");
	/* an exact name wins over the longer ones it begins */
	args_bad("target --listen 1.2.3.4:5 --nqn nqn.a --ns a --ana",
		 "--ana needs a value");
	args_bad("target -vx", "unknown option \"-x\"");
	args_bad("target -v=1", "unknown option \"-=\"");
	args_bad("target --listen 1.2.3.4:5 --nqn nqn.a --ns a -- b",
		 "unexpected argument \"b\"");
	args_bad("target --nq nqn.a --nqn nqn.b", "--nqn given twice");
	args_bad("target --verb=1", "--verbose takes no value");
	/* stops at the first operand: what follows is not read */
	args_bad("target stray --bogus", "unexpected argument \"stray\"");
	/* getopt's state starts over on every call */
	args_ok(&t, "target --listen 1.2.3.4:5 --nqn nqn.a --ns a");
	tgt_config_free(&t);
}

static void test_args_config(void **state)
{
	char path[] = "/tmp/mqblk-config-XXXXXX", line[256];
	struct tgt t;
	FILE *f;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs(nvmetcli_json, f);
	fclose(f);
	snprintf(line, sizeof(line), "target --config %s --reactors 2 -v",
		 path);
	args_ok(&t, line);
	assert_int_equal(t.nr_subsys, 2);
	assert_int_equal(t.nr_ports, 2);
	assert_int_equal(t.nr_reactors, 2);
	assert_int_equal(t.stall_ms, 5000);
	assert_true(t.verbose);
	tgt_config_free(&t);

	snprintf(line, sizeof(line), "target --config=%s --ns a", path);
	args_bad(line, "--config and --ns exclude each other");
	snprintf(line, sizeof(line), "target --listen 1.2.3.4:5 --config %s",
		 path);
	args_bad(line, "--config and --listen exclude each other");
	snprintf(line, sizeof(line), "target --config %s --allow-any-host",
		 path);
	args_bad(line, "--config and --allow-any-host exclude each other");
	snprintf(line, sizeof(line), "target --config %s --discovery-port 9",
		 path);
	args_bad(line, "--config and --discovery-port exclude each other");
	snprintf(line, sizeof(line), "target --config %s --inline-data-size 0",
		 path);
	args_bad(line, "--config and --inline-data-size exclude each other");
	unlink(path);
	snprintf(line, sizeof(line), "target --config %s --stats-socket /x",
		 path);
	args_bad(line, "No such file or directory");
}

/* --inline-data-size and --max-queue-size: the --listen port's */
static void test_args_port_params(void **state)
{
	struct tgt t;

	(void)state;
	args_ok(&t, "target --listen 127.0.0.1:4420 --nqn nqn.a:b --ns x "
		    "--inline-data-size 131072 --max-queue-size=128 "
		    "--discovery-port 8009");
	assert_int_equal(t.ports[0].inline_data, 131072);
	assert_int_equal(t.ports[0].max_queue_size, 128);
	assert_int_equal(t.ports[1].inline_data, TGT_INLINE_DATA);
	assert_int_equal(t.ports[1].max_queue_size, TGT_MAX_QUEUE_DEPTH);
	tgt_config_free(&t);
	args_ok(&t, "target --listen 127.0.0.1:4420 --nqn nqn.a:b --ns x "
		    "--inline-data-size 0");
	assert_int_equal(t.ports[0].inline_data, 0);
	tgt_config_free(&t);
	args_bad("target --listen 1.2.3.4:5 --nqn nqn.a --ns a "
		 "--inline-data-size 131073",
		 "--inline-data-size: \"131073\" is out of range");
	args_bad("target --listen 1.2.3.4:5 --nqn nqn.a --ns a "
		 "--max-queue-size 15",
		 "--max-queue-size: \"15\" is out of range");
	args_bad("target --listen 1.2.3.4:5 --nqn nqn.a --ns a "
		 "--max-queue-size 2k",
		 "--max-queue-size");
}

/* --listen rdma:ADDR:PORT and the RDMA completion options */
static void test_args_rdma(void **state)
{
	struct tgt t;

	(void)state;
	args_ok(&t, "target --listen rdma:10.0.2.15:4420 --listen "
		    "10.0.2.15:4420 --listen tcp:10.0.2.15:4421 --nqn nqn.a:b "
		    "--ns x --rdma-signal-every 16 "
		    "--rdma-cq-moderation 32,16 --discovery-port 8009");
	assert_int_equal(t.ports[0].trtype, NVMF_TRTYPE_RDMA);
	assert_string_equal(t.ports[0].traddr, "10.0.2.15");
	assert_string_equal(t.ports[0].trsvcid, "4420");
	assert_int_equal(t.ports[1].trtype, NVMF_TRTYPE_TCP);
	assert_int_equal(t.ports[2].trtype, NVMF_TRTYPE_TCP);
	assert_string_equal(t.ports[2].trsvcid, "4421");
	/* the discovery port is the first --listen's transport */
	assert_int_equal(t.ports[3].trtype, NVMF_TRTYPE_RDMA);
	assert_true(t.ports[3].discovery_only);
	assert_int_equal(t.rdma_signal_every, 16);
	assert_int_equal(t.rdma_cqm_count, 32);
	assert_int_equal(t.rdma_cqm_usecs, 16);
	tgt_config_free(&t);
	/* a port named as --listen gave it: rdma:ADDR:PORT, or a bare
	 * ADDR:PORT, the TCP port's when both have it */
	args_ok(&t, "target --listen rdma:10.0.2.15:4420 --listen "
		    "10.0.2.15:4420 --listen rdma:10.0.2.15:4421 --nqn nqn.a:b "
		    "--ns x --ana rdma:10.0.2.15:4420:1=inaccessible "
		    "--ana 10.0.2.15:4420:1=non-optimized "
		    "--ana 10.0.2.15:4421:1=change");
	assert_int_equal(t.ports[0].ana_state[1], NVME_ANA_INACCESSIBLE);
	assert_int_equal(t.ports[1].ana_state[1], NVME_ANA_NONOPTIMIZED);
	assert_int_equal(t.ports[2].ana_state[1], NVME_ANA_CHANGE);
	tgt_config_free(&t);
	args_bad("target --listen rdma:1.2.3.4:5 --listen rdma:1.2.3.4:5 "
		 "--nqn nqn.a --ns a",
		 "--listen: rdma:1.2.3.4:5 given twice");
	args_bad("target --listen rdma:1.2.3.4 --nqn nqn.a --ns a",
		 "--listen: \"rdma:1.2.3.4\": expected ADDR:PORT");
	args_bad("target --listen 1.2.3.4:5 --nqn nqn.a --ns a "
		 "--rdma-signal-every 0",
		 "--rdma-signal-every: \"0\" is out of range");
	args_bad("target --listen 1.2.3.4:5 --nqn nqn.a --ns a "
		 "--rdma-cq-moderation 32",
		 "--rdma-cq-moderation: \"32\": expected COUNT,USEC");
	args_bad("target --listen 1.2.3.4:5 --nqn nqn.a --ns a "
		 "--rdma-cq-moderation 0,16",
		 "expected COUNT,USEC");
	args_bad("target --listen 1.2.3.4:5 --nqn nqn.a --ns a "
		 "--rdma-cq-moderation 32,70000",
		 "expected COUNT,USEC");
	args_bad("target --listen 1.2.3.4:5 --nqn nqn.a --ns a "
		 "--rdma-cq-moderation 32,16 --busy-poll",
		 "--rdma-cq-moderation moderates completion events, and "
		 "--busy-poll waits for none: one or the other");
	args_bad("target --listen 1.2.3.4:5 --nqn nqn.a --ns a --rdma-srq",
		 "--rdma-srq: no RDMA port to apply it to");
	args_bad("target --listen 1.2.3.4:5 --nqn nqn.a --ns a "
		 "--rdma-signal-every 4",
		 "--rdma-signal-every: no RDMA port");
}

static void test_args_refusals(void **state)
{
	(void)state;
	args_bad("target", "missing --listen, --nqn, --ns");
	args_bad("target --listen 1.2.3.4:5 --ns a", "missing --nqn");
	args_bad("target --nqn nqn.a --listen 1.2.3.4:5", "missing --ns");
	args_bad("target --nqn nqn.a --ns a", "missing --listen");
	args_bad("target --listen 1.2.3.4:5 --nqn nqn.a --ns a --bogus",
		 "unknown option \"--bogus\"");
	args_bad("target --listen 1.2.3.4:5 --nqn nqn.a --ns a --bogus=1",
		 "unknown option \"--bogus\"");
	args_bad("target -x", "unknown option \"-x\"");
	args_bad("target stray", "unexpected argument \"stray\"");
	args_bad("target --listen", "--listen needs a value");
	args_bad("target --allow-any-host=1", "--allow-any-host takes no "
					      "value");
	args_bad("target --listen 1.2.3.4:5 --listen 1.2.3.4:5 --nqn nqn.a "
		 "--ns a",
		 "--listen: 1.2.3.4:5 given twice");
	args_bad("target --listen 1.2.3.4:5 --nqn nqn.a --ns a --allow-host "
		 "nqn.h --allow-any-host",
		 "--allow-host and --allow-any-host exclude each other");
	args_bad("target --listen 1.2.3.4 --nqn nqn.a --ns a",
		 "--listen: \"1.2.3.4\": expected ADDR:PORT");
	args_bad("target --listen 1.2.3.4:0 --nqn nqn.a --ns a",
		 "--listen: \"1.2.3.4:0\": the port must be 1..65535");
	args_bad("target --listen 1.2.3.4:65536 --nqn nqn.a --ns a",
		 "the port must be 1..65535");
	args_bad("target --listen 1.2.3.4:x --nqn nqn.a --ns a",
		 "the port must be 1..65535");
	args_bad("target --listen 1.2.3:5 --nqn nqn.a --ns a",
		 "not an IPv4 address");
	args_bad("target --listen host:5 --nqn nqn.a --ns a",
		 "not an IPv4 address");
	args_bad("target --listen ::1:5 --nqn nqn.a --ns a",
		 "not an IPv4 address (IPv6: [ADDR]:PORT)");
	args_bad("target --listen [::1]5 --nqn nqn.a --ns a",
		 "expected [IPv6]:PORT");
	args_bad("target --listen [::g]:5 --nqn nqn.a --ns a",
		 "not an IPv6 address");
	args_bad("target --listen 1.2.3.4:5 --nqn disk --ns a",
		 "--nqn: \"disk\": an NQN starts with \"nqn.\"");
	args_bad("target --listen 1.2.3.4:5 --nqn nqn. --ns a",
		 "an NQN starts with");
	args_bad("target --listen 1.2.3.4:5 --nqn "
		 "nqn.2014-08.org.nvmexpress.discovery --ns a",
		 "is the discovery subsystem's NQN");
	args_bad("target --listen 1.2.3.4:5 --nqn nqn.a --ns a --allow-host "
		 "host1",
		 "--allow-host: \"host1\": an NQN starts with");
	args_bad("target --listen 1.2.3.4:5 --nqn nqn.a --ns a --allow-host "
		 "nqn.h --allow-host nqn.h",
		 "--allow-host: nqn.h given twice");
	args_bad("target --listen 1.2.3.4:5 --nqn nqn.a --ns=",
		 "--ns: empty device");
	args_bad("target --listen 1.2.3.4:5 --nqn nqn.a --ns a "
		 "--discovery-port 5",
		 "--discovery-port: 5 is a --listen port");
	args_bad("target --listen 1.2.3.4:5 --nqn nqn.a --ns a "
		 "--discovery-port 0",
		 "--discovery-port: \"0\" is out of range (1..65535)");
	args_bad("target --listen 1.2.3.4:5 --nqn nqn.a --ns a --reactors "
		 "1025",
		 "--reactors: \"1025\" is out of range (0..1024)");
	args_bad("target --listen 1.2.3.4:5 --nqn nqn.a --ns a --reactors -1",
		 "--reactors: \"-1\" is not a number (0..1024)");
	args_bad("target --listen 1.2.3.4:5 --nqn nqn.a --ns a --stall-ms 0",
		 "--stall-ms: \"0\" is out of range (1..3600000)");
	args_bad("target --listen 1.2.3.4:5 --nqn nqn.a --ns a --stall-ms 5s",
		 "--stall-ms: \"5s\" is not a number");
	args_bad("target --listen 1.2.3.4:5 --nqn nqn.a --ns a "
		 "--stats-socket=",
		 "--stats-socket: empty path");
}

/* Several --listen: one subsystem on each (its paths); ANA groups and
 * initial states from --ana-group and --ana. */
static void test_args_ana(void **state)
{
	struct tgt t;
	struct tgt_subsys *s;

	(void)state;
	args_ok(&t, "target --listen 127.0.0.1:4420 --listen [::1]:4421 "
		    "--listen 127.0.0.1:4422 --nqn nqn.a:b --ns x --ns y "
		    "--ns z --ana-group 2:5 --ana-group 3:5 "
		    "--ana 2:5=inaccessible --ana 127.0.0.1:4422:1=change "
		    "--ana [::1]:4421:1=non-optimized --discovery-port 8009 "
		    "--inline-data-size 0 --ctl /tmp/c.sock");
	assert_int_equal(t.nr_ports, 4);
	s = t.subsys[0];
	assert_int_equal(t.ports[0].portid, 1);
	assert_int_equal(t.ports[1].portid, 2);
	assert_int_equal(t.ports[1].adrfam, NVMF_ADDR_FAMILY_IP6);
	assert_string_equal(t.ports[1].traddr, "::1");
	assert_int_equal(t.ports[2].portid, 3);
	assert_string_equal(t.ports[2].trsvcid, "4422");
	assert_int_equal(t.ports[3].portid, 4);
	assert_true(t.ports[3].discovery_only);
	assert_string_equal(t.ports[3].trsvcid, "8009");
	assert_string_equal(t.ports[3].traddr, "127.0.0.1");
	for (unsigned i = 0; i < 3; i++) {
		assert_int_equal(t.ports[i].nr_subsys, 1);
		assert_ptr_equal(t.ports[i].subsys[0], s);
		assert_int_equal(t.ports[i].inline_data, 0);
	}
	assert_int_equal(s->ns[0]->anagrpid, 1);
	assert_int_equal(s->ns[1]->anagrpid, 5);
	assert_int_equal(s->ns[2]->anagrpid, 5);
	assert_true(t.ana_group_used[1]);
	assert_true(t.ana_group_used[5]);
	assert_false(t.ana_group_used[2]);
	assert_int_equal(t.ports[0].ana_state[1], NVME_ANA_OPTIMIZED);
	assert_int_equal(t.ports[0].ana_state[5], NVME_ANA_OPTIMIZED);
	assert_int_equal(t.ports[1].ana_state[5], NVME_ANA_INACCESSIBLE);
	assert_int_equal(t.ports[1].ana_state[1], NVME_ANA_NONOPTIMIZED);
	assert_int_equal(t.ports[2].ana_state[1], NVME_ANA_CHANGE);
	assert_string_equal(t.ctl_path, "/tmp/c.sock");
	tgt_config_free(&t);

	args_bad("target --listen 1.2.3.4:5 --nqn nqn.a --ns a "
		 "--ana-group 2:1",
		 "--ana-group: \"2:1\": no namespace 2");
	args_bad("target --listen 1.2.3.4:5 --nqn nqn.a --ns a "
		 "--ana-group 1:129",
		 "ANA group 129 out of range (1..128)");
	args_bad("target --listen 1.2.3.4:5 --nqn nqn.a --ns a "
		 "--ana-group 1",
		 "--ana-group: \"1\": expected NSID:GROUP");
	args_bad("target --listen 1.2.3.4:5 --nqn nqn.a --ns a "
		 "--ana-group 1:2 --ana-group 1:3",
		 "--ana-group: namespace 1 given twice");
	args_bad("target --listen 1.2.3.4:5 --nqn nqn.a --ns a "
		 "--ana 1:1=sleepy",
		 "not an ANA state");
	args_bad("target --listen 1.2.3.4:5 --nqn nqn.a --ns a "
		 "--ana 1=optimized",
		 "expected PORT:GROUP=STATE");
	args_bad("target --listen 1.2.3.4:5 --nqn nqn.a --ns a "
		 "--ana 7:1=optimized",
		 "\"7\": no port with that ID");
	args_bad("target --listen 1.2.3.4:5 --nqn nqn.a --ns a "
		 "--ana 1.2.3.4:6:1=optimized",
		 "\"1.2.3.4:6\": no such port");
	args_bad("target --listen 1.2.3.4:5 --nqn nqn.a --ns a "
		 "--ana 1:2=optimized",
		 "no namespace is in ANA group 2");
	args_bad("target --listen 1.2.3.4:5 --nqn nqn.a --ns a "
		 "--discovery-port 9 --ana 2:1=optimized",
		 "port 2 is the discovery port");
	args_bad("target --listen 1.2.3.4:5 --nqn nqn.a --ns a --ctl=",
		 "--ctl: empty path");
	args_bad("target --config f.json --ana-group 1:1",
		 "--config and --ana-group exclude each other");
}

/* nvmetcli's ANA shapes: a namespace's "ana_grpid", a port's
 * "ana_groups" with their states. */
static void test_json_ana(void **state)
{
	struct tgt t;
	struct tgt_subsys *s;

	(void)state;
	load_ok(&t, q("{'ports':[{'portid':1,'addr':{'trtype':'tcp',"
		      "'adrfam':'ipv4','traddr':'0.0.0.0','trsvcid':4420},"
		      "'ana_groups':[{'grpid':1,'ana':{'state':'optimized'}},"
		      "{'grpid':2,'ana':{'state':'inaccessible'}},"
		      "{'grpid':9,'ana':{'state':'change'}}],"
		      "'subsystems':['nqn.2024-01.io.mqblk:a']},"
		      "{'portid':2,'addr':{'trtype':'tcp',"
		      "'adrfam':'ipv4','traddr':'0.0.0.0','trsvcid':4421},"
		      "'ana_groups':[{'grpid':2,'ana':{'state':"
		      "'persistent-loss'}}],"
		      "'subsystems':['nqn.2024-01.io.mqblk:a']}],"
		      "'subsystems':[{'nqn':'nqn.2024-01.io.mqblk:a',"
		      "'attr':{'allow_any_host':1},'namespaces':["
		      "{'nsid':1,'enable':1,'ana_grpid':2,"
		      "'device':{'path':'null:'}},"
		      "{'nsid':2,'enable':1,'device':{'path':'null:'}}]}]}"));
	s = t.subsys[0];
	assert_int_equal(s->ns[0]->anagrpid, 2);
	assert_int_equal(s->ns[1]->anagrpid, 1);
	assert_true(t.ana_group_used[1]);
	assert_true(t.ana_group_used[2]);
	assert_true(t.ana_group_used[9]); /* named by a port: exists */
	assert_false(t.ana_group_used[3]);
	assert_int_equal(t.ports[0].ana_state[2], NVME_ANA_INACCESSIBLE);
	assert_int_equal(t.ports[0].ana_state[9], NVME_ANA_CHANGE);
	assert_int_equal(t.ports[1].ana_state[1], NVME_ANA_OPTIMIZED);
	assert_int_equal(t.ports[1].ana_state[2], NVME_ANA_PERSISTENT_LOSS);
	tgt_config_free(&t);

	load_bad(q("{'ports':[{'portid':1,'addr':{'trtype':'tcp',"
		   "'adrfam':'ipv4','traddr':'0.0.0.0','trsvcid':4420},"
		   "'ana_groups':[{'grpid':1,'ana':{'state':'fast'}}]}]}"),
		 "ports[0].ana_groups[0].ana.state");
	load_bad(q("{'ports':[{'portid':1,'addr':{'trtype':'tcp',"
		   "'adrfam':'ipv4','traddr':'0.0.0.0','trsvcid':4420},"
		   "'ana_groups':[{'grpid':0}]}]}"),
		 "ports[0].ana_groups[0].grpid");
	load_bad(q("{'ports':[{'portid':1,'addr':{'trtype':'tcp',"
		   "'adrfam':'ipv4','traddr':'0.0.0.0','trsvcid':4420},"
		   "'ana_groups':[{'grpid':3},{'grpid':3}]}]}"),
		 "ANA group 3 listed twice");
	load_bad(q("{'ports':[{'portid':1,'addr':{'trtype':'tcp',"
		   "'adrfam':'ipv4','traddr':'0.0.0.0','trsvcid':4420},"
		   "'subsystems':['nqn.2024-01.io.mqblk:a']}],"
		   "'subsystems':[{'nqn':'nqn.2024-01.io.mqblk:a',"
		   "'namespaces':[{'nsid':1,'ana_grpid':129}]}]}"),
		 "ana_grpid");
}

static void ctl_bad(struct tgt *t, const char *line, const char *want)
{
	struct tgt_ctl_cmd cmd;
	char e[256] = "";

	if (!tgt_ctl_parse(line, strlen(line), &cmd, e, sizeof(e)) &&
	    tgt_ctl_port(t, &cmd, e, sizeof(e)))
		fail_msg("accepted '%s', wanted '%s'", line, want);
	if (!strstr(e, want))
		fail_msg("'%s': error '%s' lacks '%s'", line, e, want);
	assert_null(strchr(e, '\n'));
}

/* Control socket lines: the parser and the port lookup. */
static void test_ctl_lines(void **state)
{
	struct tgt t;
	struct tgt_ctl_cmd cmd;
	char e[256];

	(void)state;
	args_ok(&t, "target --listen 127.0.0.1:4420 --listen [::1]:4421 "
		    "--nqn nqn.a:b --ns x --ns y --ana-group 2:7 "
		    "--discovery-port 8009");
	assert_int_equal(tgt_ctl_parse("ana 7 [::1]:4421 change\n", 24, &cmd, e,
				       sizeof(e)),
			 0);
	assert_int_equal(cmd.op, TGT_CTL_ANA);
	assert_int_equal(cmd.grp, 7);
	assert_int_equal(cmd.state, NVME_ANA_CHANGE);
	assert_ptr_equal(tgt_ctl_port(&t, &cmd, e, sizeof(e)), &t.ports[1]);
	assert_int_equal(
		tgt_ctl_parse("\tport-down   1 ", 15, &cmd, e, sizeof(e)), 0);
	assert_int_equal(cmd.op, TGT_CTL_PORT_DOWN);
	assert_ptr_equal(tgt_ctl_port(&t, &cmd, e, sizeof(e)), &t.ports[0]);
	assert_int_equal(tgt_ctl_parse("port-up 3", 9, &cmd, e, sizeof(e)), 0);
	assert_int_equal(cmd.op, TGT_CTL_PORT_UP);
	assert_ptr_equal(tgt_ctl_port(&t, &cmd, e, sizeof(e)), &t.ports[2]);
	assert_int_equal(tgt_ctl_parse("stats", 5, &cmd, e, sizeof(e)), 0);
	assert_int_equal(cmd.op, TGT_CTL_STATS);
	assert_int_equal(cmd.format, TGT_CTL_TEXT);
	assert_false(cmd.json);
	/* -o FORMAT: any command, anywhere on the line, three spellings */
	assert_int_equal(
		tgt_ctl_parse("stats -o table", 14, &cmd, e, sizeof(e)), 0);
	assert_int_equal(cmd.op, TGT_CTL_STATS);
	assert_int_equal(cmd.format, TGT_CTL_TABLE);
	assert_false(cmd.json);
	assert_int_equal(tgt_ctl_parse("-ojson stats", 12, &cmd, e, sizeof(e)),
			 0);
	assert_int_equal(cmd.format, TGT_CTL_JSON);
	assert_true(cmd.json);
	assert_int_equal(tgt_ctl_parse("ana -o json 7 [::1]:4421 change", 31,
				       &cmd, e, sizeof(e)),
			 0);
	assert_int_equal(cmd.op, TGT_CTL_ANA);
	assert_int_equal(cmd.grp, 7);
	assert_string_equal(cmd.port, "[::1]:4421");
	assert_true(cmd.json);
	assert_int_equal(tgt_ctl_parse("port-down 1 --output-format=json", 32,
				       &cmd, e, sizeof(e)),
			 0);
	assert_int_equal(cmd.op, TGT_CTL_PORT_DOWN);
	assert_string_equal(cmd.port, "1");
	assert_true(cmd.json);
	assert_int_equal(
		tgt_ctl_parse("port-up 3 -o text", 17, &cmd, e, sizeof(e)), 0);
	assert_int_equal(cmd.op, TGT_CTL_PORT_UP);
	assert_false(cmd.json);

	ctl_bad(&t, "", "empty command");
	ctl_bad(&t, "ana 1 1", "usage: ana GROUP PORT STATE");
	ctl_bad(&t, "ana 0 1 optimized", "the ANA group must be 1..128");
	ctl_bad(&t, "ana 1x 1 optimized", "ana: 1x: the ANA group must be");
	ctl_bad(&t, "ana 1 1 asleep", "asleep: not an ANA state");
	ctl_bad(&t, "ana 2 1 optimized", "ANA group 2 does not exist");
	ctl_bad(&t, "ana 1 3 optimized", "port 3 serves discovery only");
	ctl_bad(&t, "ana 1 9 optimized", "\"9\": no port with that ID");
	ctl_bad(&t, "ana 1 10.0.0.1:4420 optimized", "no such port");
	ctl_bad(&t, "port-down", "usage: port-down PORT");
	ctl_bad(&t, "stats now", "usage: stats");
	ctl_bad(&t, "stats -o yaml", "-o yaml: not an output format");
	ctl_bad(&t, "stats -o", "-o: missing the output format");
	ctl_bad(&t, "port-down 1 -o table", "-o table: only stats has a table");
	ctl_bad(&t, "reboot", "reboot: unknown command");
	ctl_bad(&t, "ana\x01 1", "ana\\x01");
	tgt_config_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_values),
		cmocka_unit_test(test_json_strings),
		cmocka_unit_test(test_json_errors),
		cmocka_unit_test(test_json_stricter_than_jsonc),
		cmocka_unit_test(test_json_quote),
		cmocka_unit_test(test_nvmetcli_saved),
		cmocka_unit_test(test_nvmetcli_example),
		cmocka_unit_test(test_minimal_defaults),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_load_file),
		cmocka_unit_test(test_args_issue_form),
		cmocka_unit_test(test_args_stable_ids),
		cmocka_unit_test(test_args_forms),
		cmocka_unit_test(test_args_help),
		cmocka_unit_test(test_args_getopt),
		cmocka_unit_test(test_args_config),
		cmocka_unit_test(test_args_port_params),
		cmocka_unit_test(test_args_rdma),
		cmocka_unit_test(test_args_refusals),
		cmocka_unit_test(test_args_ana),
		cmocka_unit_test(test_json_ana),
		cmocka_unit_test(test_ctl_lines),
		cmocka_unit_test(test_json_dhchap),
		cmocka_unit_test(test_json_tls),
		cmocka_unit_test(test_args_tls),
		cmocka_unit_test(test_args_dhchap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
