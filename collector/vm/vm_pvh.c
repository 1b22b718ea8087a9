// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel as qemu boots it fastest under TCG: the uncompressed vmlinux
 * inside a bzImage, entered through its PVH entry point (CONFIG_PVH, set in
 * Debian's kernels), so that the guest's emulated CPU does not inflate the
 * kernel itself (0.4-0.5 s of qemu's CPU time for Debian's 6.1 cloud
 * kernel). The payload is inflated on the host with the compressor's own
 * tool (gzip, xz, lz4, zstd, bzip2), capped in size; a bzImage without a
 * payload we can inflate, or whose vmlinux has no PVH entry, is booted as
 * it is. The image may come from anywhere: its header is checked against
 * its size, and the result must be an x86-64 ELF with a PVH note.
 */
#include "vm_pvh.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exec.h"
#include "files.h"
#include "log.h"

/* no kernel comes near this uncompressed; a payload that inflates beyond it is refused */
#define VMLINUX_MAX (512L << 20)
#define XEN_ELFNOTE_PHYS32_ENTRY 18

struct inflater {
	const unsigned char *magic;
	size_t len;
	const char *argv[4];
	bool size_appended; /* the kernel's build appends the size (all but gzip) */
};

static const struct inflater inflaters[] = {
	{ (const unsigned char *)"\x1f\x8b", 2, { "gzip", "-dc", NULL }, false },
	{ (const unsigned char *)"\xfd" "7zXZ", 5, { "xz", "-dc", NULL }, true },
	{ (const unsigned char *)"\x02\x21\x4c\x18", 4, { "lz4", "-dc", NULL }, true },
	{ (const unsigned char *)"\x28\xb5\x2f\xfd", 4, { "zstd", "-dcq", NULL }, true },
	{ (const unsigned char *)"BZh", 3, { "bzip2", "-dc", NULL }, true },
	{ (const unsigned char *)"\x5d\x00\x00", 3, { "xz", "--format=lzma", "-dc", NULL }, true },
};

static uint32_t le32(const unsigned char *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The compressed payload of a bzImage (boot protocol 2.08+) into payload; its inflater, or NULL. */
static const struct inflater *write_payload(const char *image, const char *payload)
{
	const struct inflater *inf = NULL;
	size_t len = 0, off, plen;
	char *img = file_read(image, &len);
	const unsigned char *u = (const unsigned char *)img;

	if (!img || len < 0x250 || memcmp(img + 0x202, "HdrS", 4) || (u[0x206] | u[0x207] << 8) < 0x208)
		goto out;
	off = ((size_t)(u[0x1f1] ? u[0x1f1] : 4) + 1) * 512 + le32(u + 0x248);
	plen = le32(u + 0x24c);
	if (off >= len || plen > len - off || plen < 16)
		goto out;
	for (size_t i = 0; i < sizeof(inflaters) / sizeof(inflaters[0]); i++)
		if (!memcmp(u + off, inflaters[i].magic, inflaters[i].len))
			inf = &inflaters[i];
	if (inf && file_write(payload, u + off, plen - (inf->size_appended ? 4 : 0)) < 0)
		inf = NULL;
out:
	free(img);
	return inf;
}

/* Run the inflater from payload into out, its output capped at VMLINUX_MAX; 0 or -1. */
static int inflate(const struct inflater *inf, const char *payload, const char *out)
{
	int in = open(payload, O_RDONLY | O_CLOEXEC);
	int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	pid_t pid = in >= 0 && fd >= 0 ? fork() : -1;

	if (pid == 0) {
		struct rlimit rl = { VMLINUX_MAX, VMLINUX_MAX };
		int null = open("/dev/null", O_WRONLY);

		setrlimit(RLIMIT_FSIZE, &rl);
		dup2(in, 0);
		dup2(fd, 1);
		if (null >= 0)
			dup2(null, 2);
		execvp(inf->argv[0], (char *const *)inf->argv);
		_exit(127);
	}
	if (in >= 0)
		close(in);
	if (fd >= 0)
		close(fd);
	if (pid < 0)
		return -1;
	return exec_wait(pid) == 0 ? 0 : -1;
}

/* Does this note segment hold Xen's PHYS32_ENTRY, the PVH entry point? */
static bool has_pvh_note(const unsigned char *p, size_t len)
{
	size_t pos = 0;

	while (len - pos >= sizeof(Elf64_Nhdr)) {
		const Elf64_Nhdr *n = (const void *)(p + pos);
		size_t nsz = ((size_t)n->n_namesz + 3) & ~(size_t)3;
		size_t dsz = ((size_t)n->n_descsz + 3) & ~(size_t)3;

		pos += sizeof(*n);
		if (nsz > len - pos || dsz > len - pos - nsz)
			return false;
		if (n->n_type == XEN_ELFNOTE_PHYS32_ENTRY && n->n_namesz == 4 &&
		    !memcmp(p + pos, "Xen", 4))
			return true;
		pos += nsz + dsz;
	}
	return false;
}

/* Is path an x86-64 ELF executable with a PVH entry note? */
static bool pvh_elf(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	unsigned char *m = MAP_FAILED;
	bool ok = false;

	if (fd >= 0 && fstat(fd, &st) == 0 && (size_t)st.st_size >= sizeof(Elf64_Ehdr))
		m = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (m != MAP_FAILED) {
		const Elf64_Ehdr *eh = (const void *)m;
		size_t size = st.st_size;

		if (!memcmp(eh->e_ident, ELFMAG, SELFMAG) && eh->e_ident[EI_CLASS] == ELFCLASS64 &&
		    eh->e_machine == EM_X86_64 && eh->e_phentsize == sizeof(Elf64_Phdr) &&
		    eh->e_phoff < size && eh->e_phnum <= (size - eh->e_phoff) / sizeof(Elf64_Phdr)) {
			const Elf64_Phdr *ph = (const void *)(m + eh->e_phoff);

			for (int i = 0; !ok && i < eh->e_phnum; i++)
				ok = ph[i].p_type == PT_NOTE && ph[i].p_offset < size &&
				     ph[i].p_filesz <= size - ph[i].p_offset &&
				     has_pvh_note(m + ph[i].p_offset, ph[i].p_filesz);
		}
		munmap(m, st.st_size);
	}
	if (fd >= 0)
		close(fd);
	return ok;
}

int vm_kernel_pvh(const char *image, const char *workdir, char *out, size_t outlen)
{
	char payload[PATH_MAX];
	const struct inflater *inf;
	int err = -1;

	fmt_buf(payload, sizeof(payload), "%s/vmlinux.payload", workdir);
	fmt_buf(out, outlen, "%s/vmlinux", workdir);
	inf = write_payload(image, payload);
	if (!inf)
		pr_debug("vm: %s: no compressed payload this host can inflate; booting the bzImage", image);
	else if (inflate(inf, payload, out) < 0)
		pr_debug("vm: %s: %s could not inflate its payload; booting the bzImage", image,
			 inf->argv[0]);
	else if (!pvh_elf(out))
		pr_debug("vm: %s: its vmlinux has no PVH entry (CONFIG_PVH); booting the bzImage", image);
	else
		err = 0;
	unlink(payload);
	if (err)
		unlink(out);
	return err;
}
