// SPDX-License-Identifier: GPL-2.0
/* WireGuard's generic netlink family (wg.h). */
#include "wg.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/genetlink.h>
#include <linux/wireguard.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "genl.h"
#include "log.h"
#include "netns_call.h"
#include "nlsock.h"

/* An address as sockaddr (port in host order), or -1. */
static int sockaddr_of(const char *addr, int port, struct sockaddr_storage *ss, size_t *len)
{
	struct sockaddr_in *in4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (port < 0 || port > 65535)
		return -1;
	if (inet_pton(AF_INET, addr, &in4->sin_addr) == 1) {
		in4->sin_family = AF_INET;
		in4->sin_port = htons((uint16_t)port);
		*len = sizeof(*in4);
		return 0;
	}
	if (inet_pton(AF_INET6, addr, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)port);
		*len = sizeof(*in6);
		return 0;
	}
	return -1;
}

static struct nlmsghdr *device_msg(void *buf, uint16_t fam, uint8_t cmd, const char *dev)
{
	struct nlmsghdr *nlh = genl_msg(buf, fam, cmd, WG_GENL_VERSION);

	mnl_attr_put_strz(nlh, WGDEVICE_A_IFNAME, dev);
	return nlh;
}

int wg_set_key_build(void *buf, uint16_t fam, const char *dev, const uint8_t key[WG_KEY_BYTES])
{
	struct nlmsghdr *nlh;

	if (!ifname_ok(dev) || !fam)
		return -1;
	nlh = device_msg(buf, fam, WG_CMD_SET_DEVICE, dev);
	mnl_attr_put(nlh, WGDEVICE_A_PRIVATE_KEY, WG_KEY_BYTES, key);
	return (int)nlh->nlmsg_len;
}

int wg_set_peer_build(void *buf, uint16_t fam, const char *dev, const uint8_t pub[WG_KEY_BYTES],
		      const char *endpoint, int port, const char *allowed)
{
	struct sockaddr_storage ss;
	unsigned char a[16];
	size_t sl;
	int af = allowed && strchr(allowed, ':') ? AF_INET6 : AF_INET;
	struct nlmsghdr *nlh;
	struct nlattr *peers, *peer, *ips, *ip;

	if (!ifname_ok(dev) || !fam || !endpoint || sockaddr_of(endpoint, port, &ss, &sl) < 0 || !port ||
	    !allowed || inet_pton(af, allowed, a) != 1)
		return -1;
	nlh = device_msg(buf, fam, WG_CMD_SET_DEVICE, dev);
	mnl_attr_put_u32(nlh, WGDEVICE_A_FLAGS, WGDEVICE_F_REPLACE_PEERS);
	peers = mnl_attr_nest_start(nlh, WGDEVICE_A_PEERS);
	peer = mnl_attr_nest_start(nlh, 0);
	mnl_attr_put(nlh, WGPEER_A_PUBLIC_KEY, WG_KEY_BYTES, pub);
	mnl_attr_put_u32(nlh, WGPEER_A_FLAGS, WGPEER_F_REPLACE_ALLOWEDIPS);
	mnl_attr_put(nlh, WGPEER_A_ENDPOINT, sl, &ss);
	ips = mnl_attr_nest_start(nlh, WGPEER_A_ALLOWEDIPS);
	ip = mnl_attr_nest_start(nlh, 0);
	mnl_attr_put_u16(nlh, WGALLOWEDIP_A_FAMILY, (uint16_t)af);
	mnl_attr_put(nlh, WGALLOWEDIP_A_IPADDR, af == AF_INET ? 4 : 16, a);
	mnl_attr_put_u8(nlh, WGALLOWEDIP_A_CIDR_MASK, af == AF_INET ? 32 : 128);
	mnl_attr_nest_end(nlh, ip);
	mnl_attr_nest_end(nlh, ips);
	mnl_attr_nest_end(nlh, peer);
	mnl_attr_nest_end(nlh, peers);
	return (int)nlh->nlmsg_len;
}

int wg_get_build(void *buf, uint16_t fam, const char *dev)
{
	struct nlmsghdr *nlh;

	if (!ifname_ok(dev) || !fam)
		return -1;
	nlh = device_msg(buf, fam, WG_CMD_GET_DEVICE, dev);
	nlh->nlmsg_flags |= NLM_F_DUMP; /* the family answers GET_DEVICE as a dump only */
	return (int)nlh->nlmsg_len;
}

/* The family's id in netns, or -errno with why (no family: the module is not loaded). */
static int family(const char *netns, char *err, size_t len)
{
	int fam = genl_family(netns, WG_GENL_NAME);

	if (fam == 0) {
		msg_err(err, len, "no generic netlink family '%s' (the wireguard module is not loaded)", WG_GENL_NAME);
		return -ENOENT;
	}
	if (fam < 0)
		msg_err(err, len, "cannot ask for the family '%s': %s", WG_GENL_NAME, strerror(-fam));
	return fam;
}

/* One request built by build (its return: its length or -1) and sent in netns. */
static int talk(const char *netns, int len, void *buf, mnl_cb_t cb, void *data, char *err, size_t errlen)
{
	struct mnl_socket *nl;
	int rc;

	if (len < 0) {
		explicit_bzero(buf, NLSOCK_BUF);
		msg_err(err, errlen, "a device name, address or port that is not one");
		return -EINVAL;
	}
	nl = nlsock_open(netns, NETLINK_GENERIC);
	if (!nl) {
		rc = -errno;
		explicit_bzero(buf, NLSOCK_BUF);
		msg_err(err, errlen, "netlink: %s", strerror(errno));
		return rc;
	}
	/* a key in the request, or (GET_DEVICE) in the answer: both wiped */
	rc = nlsock_talk(nl, buf, cb, data, err, errlen, NLSOCK_SECRET);
	mnl_socket_close(nl);
	if (rc < 0 && err && errlen && !err[0])
		msg_err(err, errlen, "%s", strerror(-rc));
	return rc;
}

int wg_set_key(const char *netns, const char *dev, const uint8_t key[WG_KEY_BYTES], char *err, size_t len)
{
	char buf[NLSOCK_BUF];
	int fam = family(netns, err, len);

	if (fam < 0)
		return fam;
	return talk(netns, wg_set_key_build(buf, (uint16_t)fam, dev, key), buf, NULL, NULL, err, len);
}

int wg_set_peer(const char *netns, const char *dev, const uint8_t pub[WG_KEY_BYTES], const char *endpoint,
		int port, const char *allowed, char *err, size_t len)
{
	char buf[NLSOCK_BUF];
	int fam = family(netns, err, len);

	if (fam < 0)
		return fam;
	return talk(netns, wg_set_peer_build(buf, (uint16_t)fam, dev, pub, endpoint, port, allowed), buf, NULL,
		    NULL, err, len);
}

static int peer_cb(const struct nlattr *a, void *data)
{
	struct wg_state *st = data;

	if (mnl_attr_get_type(a) == WGPEER_A_RX_BYTES && mnl_attr_validate(a, MNL_TYPE_U64) == 0)
		st->rx_bytes += mnl_attr_get_u64(a);
	else if (mnl_attr_get_type(a) == WGPEER_A_TX_BYTES && mnl_attr_validate(a, MNL_TYPE_U64) == 0)
		st->tx_bytes += mnl_attr_get_u64(a);
	return MNL_CB_OK;
}

static int device_cb(const struct nlattr *a, void *data)
{
	struct wg_state *st = data;
	const struct nlattr *p;

	switch (mnl_attr_get_type(a)) {
	case WGDEVICE_A_PUBLIC_KEY:
		if (mnl_attr_get_payload_len(a) == WG_KEY_BYTES)
			memcpy(st->pub, mnl_attr_get_payload(a), WG_KEY_BYTES);
		break;
	case WGDEVICE_A_LISTEN_PORT:
		if (mnl_attr_validate(a, MNL_TYPE_U16) == 0)
			st->port = mnl_attr_get_u16(a);
		break;
	case WGDEVICE_A_PEERS:
		/* the private key (WGDEVICE_A_PRIVATE_KEY) is never copied out of the wiped buffer */
		mnl_attr_for_each_nested(p, a) {
			st->peers++;
			mnl_attr_parse_nested(p, peer_cb, st);
		}
		break;
	}
	return MNL_CB_OK;
}

static int get_cb(const struct nlmsghdr *nlh, void *data)
{
	return mnl_attr_parse(nlh, sizeof(struct genlmsghdr), device_cb, data);
}

int wg_get(const char *netns, const char *dev, struct wg_state *st, char *err, size_t len)
{
	char buf[NLSOCK_BUF];
	int fam = family(netns, err, len);

	memset(st, 0, sizeof(*st));
	if (fam < 0)
		return fam;
	return talk(netns, wg_get_build(buf, (uint16_t)fam, dev), buf, get_cb, st, err, len);
}
