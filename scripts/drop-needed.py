#!/usr/bin/env python3
"""Drops one library from an ELF binary's needed libraries (DT_NEEDED), in place.

    scripts/drop-needed.py BINARY libcurl.so.4 curl_

`make release` runs it on tdl: FlyingFox imports FoundationNetworking, whose link entries
name libcurl, so the linker marks it needed although every curl_* symbol tdl has is its own
(libcurl is linked in from its static archive: Package.swift). SwiftPM puts those entries
before any flag of ours, so `--as-needed` cannot reach them. Refuses, and changes nothing,
when anything in the binary still binds to the library: an undefined dynamic symbol of that
name prefix, or a symbol version the library defines.
"""
import struct
import sys

PT_LOAD, PT_DYNAMIC = 1, 2
DT_NULL, DT_NEEDED, DT_STRTAB, DT_VERNEED, DT_VERNEEDNUM = 0, 1, 5, 0x6FFFFFFE, 0x6FFFFFFF
SHT_DYNSYM = 11


def fail(text):
    sys.exit(f"drop-needed: {text}")


def main(path, library, prefix):
    data = bytearray(open(path, "rb").read())
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        fail(f"{path} is not a 64-bit little-endian ELF file")
    phoff, shoff = struct.unpack_from("<QQ", data, 0x20)
    phentsize, phnum, shentsize, shnum = struct.unpack_from("<HHHH", data, 0x36)
    segments = [struct.unpack_from("<IIQQQQQQ", data, phoff + i * phentsize) for i in range(phnum)]

    def offset(address):
        for kind, _, fileoff, vaddr, _, filesz, _, _ in segments:
            if kind == PT_LOAD and vaddr <= address < vaddr + filesz:
                return fileoff + address - vaddr
        fail(f"address {address:#x} is in no loaded segment")

    dynamic = next((s for s in segments if s[0] == PT_DYNAMIC), None) or fail(f"{path} has no dynamic section")
    start, count = dynamic[2], dynamic[5] // 16
    entries = [struct.unpack_from("<qQ", data, start + 16 * i) for i in range(count)]
    entries = entries[: next(i for i, (tag, _) in enumerate(entries) if tag == DT_NULL)]
    tags = dict(entries)
    strtab = offset(tags[DT_STRTAB])

    def string(at):
        return bytes(data[at : data.index(0, at)]).decode()

    needed = [i for i, (tag, value) in enumerate(entries) if tag == DT_NEEDED and string(strtab + value) == library]
    if not needed:
        return  # already dropped
    # A symbol version of the library's (libcurl's are CURL_OPENSSL_4 and the like).
    if DT_VERNEED in tags:
        at = offset(tags[DT_VERNEED])
        for _ in range(tags.get(DT_VERNEEDNUM, 0)):
            _, _, file, _, following = struct.unpack_from("<HHIII", data, at)
            if string(strtab + file) == library:
                fail(f"{path} binds to symbol versions of {library}")
            at += following
    # An undefined dynamic symbol named like the library's.
    for i in range(shnum):
        _, kind, _, _, sectoff, size, link, _, _, entsize = struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
        if kind != SHT_DYNSYM:
            continue
        names = struct.unpack_from("<IIQQQQIIQQ", data, shoff + link * shentsize)[4]
        for s in range(size // entsize):
            name, _, _, section, _, _ = struct.unpack_from("<IBBHQQ", data, sectoff + s * entsize)
            if section == 0 and string(names + name).startswith(prefix):
                fail(f"{path} needs {string(names + name)} from {library}")
    kept = [entry for i, entry in enumerate(entries) if i not in needed]
    for i in range(count):
        struct.pack_into("<qQ", data, start + 16 * i, *(kept[i] if i < len(kept) else (DT_NULL, 0)))
    open(path, "r+b").write(data)


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit("usage: drop-needed.py BINARY LIBRARY SYMBOL-PREFIX")
    main(*sys.argv[1:])
