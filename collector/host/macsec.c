// SPDX-License-Identifier: GPL-2.0
/* MACsec's rtnetlink kind and generic netlink family (macsec.h). */
#include "macsec.h"

#include <errno.h>
#include <linux/genetlink.h>
#include <linux/if_link.h>
#include <linux/if_macsec.h>
#include <stdio.h>
#include <string.h>

#include "genl.h"
#include "log.h"
#include "netns_call.h"
#include "nlsock.h"
#include "rtnl_link.h"

#define ICV_BYTES 16

static const struct macsec_cipher ciphers[] = {
	{ "gcm-aes-128", MACSEC_CIPHER_ID_GCM_AES_128, 16 },
	{ "gcm-aes-256", MACSEC_CIPHER_ID_GCM_AES_256, 32 },
};

const struct macsec_cipher *macsec_cipher(const char *name)
{
	for (size_t i = 0; name && i < sizeof(ciphers) / sizeof(ciphers[0]); i++)
		if (!strcmp(name, ciphers[i].name))
			return &ciphers[i];
	return NULL;
}

static void link_data(struct nlmsghdr *nlh, void *arg)
{
	const struct macsec_cipher *c = arg;

	mnl_attr_put_u64(nlh, IFLA_MACSEC_CIPHER_SUITE, c->id);
	mnl_attr_put_u8(nlh, IFLA_MACSEC_ICV_LEN, ICV_BYTES);
	mnl_attr_put_u8(nlh, IFLA_MACSEC_ENCRYPT, 1);
	mnl_attr_put_u8(nlh, IFLA_MACSEC_ENCODING_SA, 0);
}

int macsec_link_build(void *buf, const char *dev, unsigned int lower, const struct macsec_cipher *c)
{
	if (!c || !lower)
		return -1;
	return rtnl_link_add_build(buf, dev, "macsec", lower, link_data, (void *)c);
}

int macsec_add(const char *netns, const char *dev, const char *lower, const struct macsec_cipher *c, char *err,
	       size_t len)
{
	if (!c) {
		msg_err(err, len, "no cipher suite");
		return -EINVAL;
	}
	return rtnl_link_add(netns, dev, "macsec", lower, link_data, (void *)c, err, len);
}

/* An SA's settings: association number 0, packet numbers from 1, active, its key and an id for it. */
static void sa_config(struct nlmsghdr *nlh, const uint8_t *key, size_t klen)
{
	uint8_t keyid[MACSEC_KEYID_LEN] = { 'i', 'p', 's', 'e', 'c', 'p', 'e', 'r', 'f' };
	struct nlattr *sa = mnl_attr_nest_start(nlh, MACSEC_ATTR_SA_CONFIG);

	mnl_attr_put_u8(nlh, MACSEC_SA_ATTR_AN, 0);
	mnl_attr_put_u32(nlh, MACSEC_SA_ATTR_PN, 1);
	mnl_attr_put_u8(nlh, MACSEC_SA_ATTR_ACTIVE, 1);
	mnl_attr_put(nlh, MACSEC_SA_ATTR_KEYID, sizeof(keyid), keyid);
	mnl_attr_put(nlh, MACSEC_SA_ATTR_KEY, klen, key);
	mnl_attr_nest_end(nlh, sa);
}

static void rxsc_config(struct nlmsghdr *nlh, const uint8_t sci[MACSEC_SCI_BYTES], bool active)
{
	struct nlattr *sc = mnl_attr_nest_start(nlh, MACSEC_ATTR_RXSC_CONFIG);

	mnl_attr_put(nlh, MACSEC_RXSC_ATTR_SCI, MACSEC_SCI_BYTES, sci);
	if (active)
		mnl_attr_put_u8(nlh, MACSEC_RXSC_ATTR_ACTIVE, 1);
	mnl_attr_nest_end(nlh, sc);
}

static struct nlmsghdr *dev_msg(void *buf, uint16_t fam, uint8_t cmd, unsigned int ifindex)
{
	struct nlmsghdr *nlh = genl_msg(buf, fam, cmd, MACSEC_GENL_VERSION);

	mnl_attr_put_u32(nlh, MACSEC_ATTR_IFINDEX, ifindex);
	return nlh;
}

int macsec_txsa_build(void *buf, uint16_t fam, unsigned int ifindex, const uint8_t *key, size_t klen)
{
	struct nlmsghdr *nlh;

	if (!fam || !ifindex || !klen || klen > MACSEC_KEY_MAX)
		return -1;
	nlh = dev_msg(buf, fam, MACSEC_CMD_ADD_TXSA, ifindex);
	sa_config(nlh, key, klen);
	return (int)nlh->nlmsg_len;
}

int macsec_rxsc_build(void *buf, uint16_t fam, unsigned int ifindex, const uint8_t sci[MACSEC_SCI_BYTES])
{
	struct nlmsghdr *nlh;

	if (!fam || !ifindex)
		return -1;
	nlh = dev_msg(buf, fam, MACSEC_CMD_ADD_RXSC, ifindex);
	rxsc_config(nlh, sci, true);
	return (int)nlh->nlmsg_len;
}

int macsec_rxsa_build(void *buf, uint16_t fam, unsigned int ifindex, const uint8_t sci[MACSEC_SCI_BYTES],
		      const uint8_t *key, size_t klen)
{
	struct nlmsghdr *nlh;

	if (!fam || !ifindex || !klen || klen > MACSEC_KEY_MAX)
		return -1;
	nlh = dev_msg(buf, fam, MACSEC_CMD_ADD_RXSA, ifindex);
	rxsc_config(nlh, sci, false);
	sa_config(nlh, key, klen);
	return (int)nlh->nlmsg_len;
}

/* The family's id and DEV's index in netns: 0, or -errno with why. */
static int family_dev(const char *netns, const char *dev, uint16_t *fam, unsigned int *ifindex, char *err,
		      size_t len)
{
	unsigned int inum;
	int f;

	if (!ifname_ok(dev) || netns_ifindex(netns, dev, ifindex, &inum) < 0) {
		msg_err(err, len, "cannot find %s: %s", dev ? dev : "", ifname_ok(dev) ? strerror(errno) : "not a name");
		return -ENODEV;
	}
	f = genl_family(netns, MACSEC_GENL_NAME);
	if (f <= 0) {
		msg_err(err, len, f == 0 ? "no generic netlink family '%s' (the macsec module is not loaded)"
					: "cannot ask for the family '%s'", MACSEC_GENL_NAME);
		return f == 0 ? -ENOENT : f;
	}
	*fam = (uint16_t)f;
	return 0;
}

/* A built request (len, or -1) sent in netns; buf wiped whatever happens. */
static int talk(const char *netns, void *buf, int blen, mnl_cb_t cb, void *data, char *err, size_t len)
{
	struct mnl_socket *nl;
	int rc;

	if (blen < 0) {
		explicit_bzero(buf, NLSOCK_BUF);
		msg_err(err, len, "a key longer than %d bytes, or no device", MACSEC_KEY_MAX);
		return -EINVAL;
	}
	nl = nlsock_open(netns, NETLINK_GENERIC);
	if (!nl) {
		rc = -errno;
		explicit_bzero(buf, NLSOCK_BUF);
		msg_err(err, len, "netlink: %s", strerror(-rc));
		return rc;
	}
	rc = nlsock_talk(nl, buf, cb, data, err, len, NLSOCK_SECRET);
	mnl_socket_close(nl);
	if (rc < 0 && err && len && !err[0])
		msg_err(err, len, "%s", strerror(-rc));
	return rc;
}

int macsec_set_tx(const char *netns, const char *dev, const uint8_t *key, size_t klen, char *err, size_t len)
{
	char buf[NLSOCK_BUF];
	unsigned int ifindex;
	uint16_t fam;
	int rc = family_dev(netns, dev, &fam, &ifindex, err, len);

	if (rc < 0)
		return rc;
	return talk(netns, buf, macsec_txsa_build(buf, fam, ifindex, key, klen), NULL, NULL, err, len);
}

int macsec_set_rx(const char *netns, const char *dev, const uint8_t sci[MACSEC_SCI_BYTES], const uint8_t *key,
		  size_t klen, char *err, size_t len)
{
	char buf[NLSOCK_BUF];
	unsigned int ifindex;
	uint16_t fam;
	int rc = family_dev(netns, dev, &fam, &ifindex, err, len);

	if (rc < 0)
		return rc;
	rc = talk(netns, buf, macsec_rxsc_build(buf, fam, ifindex, sci), NULL, NULL, err, len);
	if (rc == 0)
		rc = talk(netns, buf, macsec_rxsa_build(buf, fam, ifindex, sci, key, klen), NULL, NULL, err, len);
	return rc;
}

/* ---- the dump: one device's SCI and counters ---- */

struct get_arg {
	unsigned int ifindex;
	struct macsec_state *st;
};

static uint64_t u64_of(const struct nlattr *a)
{
	return mnl_attr_validate(a, MNL_TYPE_U64) == 0 ? mnl_attr_get_u64(a) : 0;
}

static int txsc_stats_cb(const struct nlattr *a, void *data)
{
	struct macsec_state *st = data;

	if (mnl_attr_get_type(a) == MACSEC_TXSC_STATS_ATTR_OUT_PKTS_ENCRYPTED)
		st->out_pkts_encrypted = u64_of(a);
	else if (mnl_attr_get_type(a) == MACSEC_TXSC_STATS_ATTR_OUT_OCTETS_ENCRYPTED)
		st->out_octets_encrypted = u64_of(a);
	return MNL_CB_OK;
}

static int rxsc_stats_cb(const struct nlattr *a, void *data)
{
	struct macsec_state *st = data;

	switch (mnl_attr_get_type(a)) {
	case MACSEC_RXSC_STATS_ATTR_IN_PKTS_OK:
		st->in_pkts_ok += u64_of(a);
		break;
	case MACSEC_RXSC_STATS_ATTR_IN_OCTETS_DECRYPTED:
		st->in_octets_decrypted += u64_of(a);
		break;
	case MACSEC_RXSC_STATS_ATTR_IN_PKTS_DELAYED:
		st->in_pkts_delayed += u64_of(a);
		break;
	case MACSEC_RXSC_STATS_ATTR_IN_PKTS_INVALID:
	case MACSEC_RXSC_STATS_ATTR_IN_PKTS_NOT_VALID:
	case MACSEC_RXSC_STATS_ATTR_IN_PKTS_LATE:
	case MACSEC_RXSC_STATS_ATTR_IN_PKTS_NOT_USING_SA:
	case MACSEC_RXSC_STATS_ATTR_IN_PKTS_UNUSED_SA:
		st->in_pkts_bad += u64_of(a);
		break;
	}
	return MNL_CB_OK;
}

static int rxsc_cb(const struct nlattr *a, void *data)
{
	if (mnl_attr_get_type(a) == MACSEC_RXSC_ATTR_STATS)
		mnl_attr_parse_nested(a, rxsc_stats_cb, data);
	return MNL_CB_OK;
}

static int secy_cb(const struct nlattr *a, void *data)
{
	struct macsec_state *st = data;

	if (mnl_attr_get_type(a) == MACSEC_SECY_ATTR_SCI && mnl_attr_get_payload_len(a) == MACSEC_SCI_BYTES) {
		memcpy(st->sci, mnl_attr_get_payload(a), MACSEC_SCI_BYTES);
		st->have_sci = true;
	}
	return MNL_CB_OK;
}

static int dev_attr_cb(const struct nlattr *a, void *data)
{
	struct macsec_state *st = data;
	const struct nlattr *sc;

	switch (mnl_attr_get_type(a)) {
	case MACSEC_ATTR_SECY:
		mnl_attr_parse_nested(a, secy_cb, st);
		break;
	case MACSEC_ATTR_TXSC_STATS:
		mnl_attr_parse_nested(a, txsc_stats_cb, st);
		break;
	case MACSEC_ATTR_RXSC_LIST:
		mnl_attr_for_each_nested(sc, a) {
			st->rxscs++;
			mnl_attr_parse_nested(sc, rxsc_cb, st);
		}
		break;
	}
	return MNL_CB_OK;
}

static int ifindex_cb(const struct nlattr *a, void *data)
{
	if (mnl_attr_get_type(a) == MACSEC_ATTR_IFINDEX && mnl_attr_validate(a, MNL_TYPE_U32) == 0)
		*(unsigned int *)data = mnl_attr_get_u32(a);
	return MNL_CB_OK;
}

/* One device of the dump (every macsec device of the namespace): ours, by its index. */
static int get_cb(const struct nlmsghdr *nlh, void *data)
{
	struct get_arg *g = data;
	unsigned int ifindex = 0;

	mnl_attr_parse(nlh, sizeof(struct genlmsghdr), ifindex_cb, &ifindex);
	if (ifindex != g->ifindex)
		return MNL_CB_OK;
	return mnl_attr_parse(nlh, sizeof(struct genlmsghdr), dev_attr_cb, g->st);
}

int macsec_get(const char *netns, const char *dev, struct macsec_state *st, char *err, size_t len)
{
	char buf[NLSOCK_BUF];
	struct get_arg g = { .st = st };
	struct nlmsghdr *nlh;
	uint16_t fam;
	int rc;

	memset(st, 0, sizeof(*st));
	rc = family_dev(netns, dev, &fam, &g.ifindex, err, len);
	if (rc < 0)
		return rc;
	nlh = genl_msg(buf, fam, MACSEC_CMD_GET_TXSC, MACSEC_GENL_VERSION);
	nlh->nlmsg_flags |= NLM_F_DUMP;
	rc = talk(netns, buf, (int)nlh->nlmsg_len, get_cb, &g, err, len);
	if (rc == 0 && !st->have_sci) {
		msg_err(err, len, "%s is not a macsec device", dev);
		rc = -ENODEV;
	}
	return rc;
}
