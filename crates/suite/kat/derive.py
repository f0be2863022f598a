#!/usr/bin/env python3
"""Derives the known answers of pqbench's ML-KEM and ML-DSA self-tests from an
independent implementation: the pure-Python kyber-py, dilithium-py and pyhsslms,
the Python slh-dsa and py-fn-dsa, at the versions pinned in requirements.txt
beside this script.

It prints one line per input and per answer, `<what> <name> <hex>`; the suite's
test `kat::tests::are_those_of_the_independent_implementation` runs this
script and compares every line with the table in crates/suite/src/kat.rs.
`--rust` prints that table instead, to paste into kat.rs when an input changes.

The inputs are fixed byte strings (FIPS 203 and FIPS 204 take their randomness
as explicit arguments of the *_internal functions):
- ML-KEM.KeyGen_internal(d, z) (FIPS 203 Algorithm 16) and
  ML-KEM.Encaps_internal(ek, m) (Algorithm 17); ML-KEM.Decaps_internal(dk, c')
  (Algorithm 18) of the ciphertext with its first bit flipped gives the
  implicit-rejection key K-bar = J(z || c');
- ML-DSA.KeyGen_internal(xi) (FIPS 204 Algorithm 6) and ML-DSA.Sign (Algorithm 2)
  in its deterministic variant (rnd = 32 zero bytes) with an empty context, that
  is ML-DSA.Sign_internal(sk, M', rnd) (Algorithm 7) of the external message
  M' = IntegerToBytes(0, 1) || IntegerToBytes(|ctx|, 1) || ctx || M = 0x00 0x00 || M.
- the hybrids on ML-KEM-768 with the same d, z and m: X25519MLKEM768
  (draft-ietf-tls-ecdhe-mlkem: the client's share ek || X25519(a, 9), the
  server's c || X25519(b, 9), the secret K || X25519(b, A)) and X-Wing
  (draft-connolly-cfrg-xwing-kem-06: its key expanded from a 32-byte seed by
  SHAKE256, its secret SHA3-256(K || ss_X || ct_X || pk_X || label)), with
  X25519 (RFC 7748) written out below, checked against RFC 7748's vector;
- SLH-DSA (FIPS 205) with slh-dsa (Python, colinxu2020/slhdsa):
  slh_keygen_internal(SK.seed, SK.prf, PK.seed) (Algorithm 18) and slh_sign
  (Algorithm 22) of ML-DSA's message with the empty context, deterministic
  (opt_rand = PK.seed).
- FN-DSA-512 and FN-DSA-1024 with py-fn-dsa (cffi over c-fn-dsa, Thomas Pornin's
  C, which shares no code with his Rust fn-dsa that the suite runs): the key
  pair of a 32-byte seed (fndsa_keygen_seeded) and the signature of ML-DSA's
  message, raw, with the empty context and a 40-byte seed (fndsa_sign_seeded);
  both follow the author's reading of the coming FIPS 206 draft.
- HSS (RFC 8554) with pyhsslms (Russ Housley's Python): the key pair of a
  32-byte master seed and the signature of ML-DSA's message by its first leaf.
  RFC 8554 leaves to the signer how a master seed becomes each tree's SEED and
  I, and each signature's randomizer C; the suite's hbs-lms follows hash-sigs
  (Cisco's reference C) there, which `hash_sigs_*` below write out, and
  pyhsslms, given those values, builds the trees, signs and verifies. RFC 8554
  Appendix F's own two signatures, which the suite's self-test verifies too,
  are checked here to verify under pyhsslms.
Each output is compared through its SHA3-256 digest (FIPS 202), which a board
computes cheaply and whose equality stands for byte-for-byte equality.
"""

import hashlib
import sys
from importlib.metadata import version
from pathlib import Path

# The pinned versions, from requirements.txt beside this script.
REQUIREMENTS = Path(__file__).with_name("requirements.txt")
PINS = dict(
    line.split("==")
    for line in (raw.strip() for raw in REQUIREMENTS.read_text().splitlines())
    if line and not line.startswith("#")
)
INSTALL = (
    "`cargo xtask test` installs them into <target>/kat-venv and runs this with its python; "
    f"by hand: `pip install -r {REQUIREMENTS}`"
)

try:
    from dilithium_py.ml_dsa import ML_DSA_44, ML_DSA_65, ML_DSA_87
    from kyber_py.ml_kem import ML_KEM_512, ML_KEM_768, ML_KEM_1024
    import slhdsa
    import py_fn_dsa
    import pyhsslms.pyhsslms as hsslms
    from slhdsa.lowlevel.addresses import Address
    from slhdsa.lowlevel.xmss import XMSS
except ImportError as error:
    sys.exit(f"derive.py needs {' and '.join(f'{p}=={v}' for p, v in PINS.items())} ({error}): {INSTALL}")

for package, wanted in PINS.items():
    if version(package) != wanted:
        sys.exit(f"derive.py wants {package} {wanted}, found {version(package)}: {INSTALL}")

# The inputs, as crates/suite/src/kat.rs spells them.
D = bytes(range(0x00, 0x20))
Z = bytes(range(0x20, 0x40))
M = bytes(range(0x40, 0x60))
XI = bytes(range(0x60, 0x80))
# The suffix is chosen so that deterministic signing takes exactly two rounds
# of FIPS 204 Algorithm 7's rejection loop at every parameter set (checked
# below): the self-test then sees one candidate rejected and one accepted, so
# a miscompiled norm or hint check changes the answer, at a bounded cost on a
# board (the message without it takes 3, 2 and 9 rounds).
MESSAGE = b"pqbench known answer 26"
ROUNDS = 2
CONTEXT = b""
RND = bytes(32)  # FIPS 204 Algorithm 2, line 5 (deterministic variant)
# The hybrids' X25519 secrets (client, server), and X-Wing's seed and
# encapsulation randomness.
CLIENT_X25519 = bytes(range(0x80, 0xA0))
SERVER_X25519 = bytes(range(0xA0, 0xC0))
X_WING_SEED = bytes(range(0xC0, 0xE0))
X_WING_ESEED = bytes(b & 0xFF for b in range(0xE0, 0x120))

# SLH-DSA's SK.seed || SK.prf || PK.seed, n = 16 bytes each.
SLH_DSA_SEEDS = bytes(range(0x00, 0x30))
SLH_DSAS = (
    ("SLH-DSA-SHA2-128f", slhdsa.sha2_128f),
    ("SLH-DSA-SHAKE-128f", slhdsa.shake_128f),
    ("SLH-DSA-SHA2-128s", slhdsa.sha2_128s),
    ("SLH-DSA-SHAKE-128s", slhdsa.shake_128s),
)

# FN-DSA's key-generation and signing seeds, by degree (log2 n).
FN_DSA_KEYGEN_SEED = bytes(range(0x30, 0x50))
FN_DSA_SIGN_SEED = bytes(range(0x50, 0x78))
FN_DSAS = (("FN-DSA-512", 9), ("FN-DSA-1024", 10))

# HSS's master seed (hash-sigs' 32-byte seed, whence every tree's SEED and I),
# and the sets the suite runs: (name, levels, LMS type, LM-OTS type).
HSS_SEED = bytes(range(0x90, 0xB0))
HSSES = (
    ("HSS-SHA256-L1-H5-W4", 1, hsslms.lms_sha256_m32_h5, hsslms.lmots_sha256_n32_w4),
)
# RFC 8554 Appendix F's test cases, as the suite keeps them.
RFC_8554 = Path(__file__).with_name("rfc8554")

KEMS = (("ML-KEM-512", ML_KEM_512), ("ML-KEM-768", ML_KEM_768), ("ML-KEM-1024", ML_KEM_1024))
DSAS = (("ML-DSA-44", ML_DSA_44), ("ML-DSA-65", ML_DSA_65), ("ML-DSA-87", ML_DSA_87))


def digest(data: bytes) -> str:
    return hashlib.sha3_256(data).hexdigest()


def kem_answers(kem):
    ek, dk = kem._keygen_internal(D, Z)
    assert (ek, dk) == kem.key_derive(D + Z)
    ss, ct = kem._encaps_internal(ek, M)
    assert kem.decaps(dk, ct) == ss, "the round trip"
    tampered = bytes([ct[0] ^ 1]) + ct[1:]
    rejected = kem._decaps_internal(dk, tampered)
    # Implicit rejection (FIPS 203 Algorithm 18, lines 7 and 10): J(z || c').
    assert rejected == hashlib.shake_256(Z + tampered).digest(32) != ss
    return (("ek", ek), ("dk", dk), ("ct", ct), ("ss", ss), ("rejected", rejected))


P25519 = 2**255 - 19


def x25519(scalar: bytes, u: bytes) -> bytes:
    """RFC 7748 §5: the Montgomery ladder on Curve25519, in the RFC's words."""
    k = int.from_bytes(scalar, "little")
    k &= ~7
    k &= ~(128 << 8 * 31)
    k |= 64 << 8 * 31
    x1 = int.from_bytes(u, "little") & ((1 << 255) - 1)
    x2, z2, x3, z3, swap = 1, 0, x1, 1, 0
    for t in reversed(range(255)):
        bit = (k >> t) & 1
        swap ^= bit
        if swap:
            x2, x3, z2, z3 = x3, x2, z3, z2
        swap = bit
        a, b = x2 + z2, x2 - z2
        aa, bb = a * a, b * b
        e = aa - bb
        c, d = x3 + z3, x3 - z3
        da, cb = d * a, c * b
        x3 = (da + cb) ** 2 % P25519
        z3 = x1 * (da - cb) ** 2 % P25519
        x2 = aa * bb % P25519
        z2 = e * (aa + 121665 * e) % P25519
    if swap:
        x2, z2 = x3, z3
    return (x2 * pow(z2, P25519 - 2, P25519) % P25519).to_bytes(32, "little")


BASE = (9).to_bytes(32, "little")
# RFC 7748 §6.1, so the ladder above is known right before it is trusted.
_ALICE = bytes.fromhex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a")
_BOB_PUBLIC = bytes.fromhex("de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f")
assert x25519(_ALICE, BASE).hex() == "8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a"
assert x25519(_ALICE, _BOB_PUBLIC).hex() == "4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742"


def flipped(data: bytes) -> bytes:
    return bytes([data[0] ^ 1]) + data[1:]


def x25519_mlkem768_answers():
    ek, dk = ML_KEM_768._keygen_internal(D, Z)
    client_public = x25519(CLIENT_X25519, BASE)
    ss_m, ct = ML_KEM_768._encaps_internal(ek, M)
    server_public = x25519(SERVER_X25519, BASE)
    shared = ss_m + x25519(SERVER_X25519, client_public)
    assert ML_KEM_768.decaps(dk, ct) + x25519(CLIENT_X25519, server_public) == shared, "the round trip"
    rejected = ML_KEM_768._decaps_internal(dk, flipped(ct)) + x25519(CLIENT_X25519, server_public)
    assert rejected[:32] != shared[:32] and rejected[32:] == shared[32:]
    return (("ek", ek + client_public), ("ct", ct + server_public), ("ss", shared), ("rejected", rejected))


X_WING_LABEL = bytes.fromhex("5c2e2f2f5e5c")  # "\\.//^\\"


def x_wing_keys(seed: bytes):
    expanded = hashlib.shake_256(seed).digest(96)
    ek_m, dk_m = ML_KEM_768._keygen_internal(expanded[:32], expanded[32:64])
    sk_x = expanded[64:]
    return ek_m, dk_m, sk_x, x25519(sk_x, BASE)


def x_wing_decaps(seed: bytes, ct: bytes) -> bytes:
    _, dk_m, sk_x, pk_x = x_wing_keys(seed)
    ct_m, ct_x = ct[:1088], ct[1088:]
    ss_m = ML_KEM_768._decaps_internal(dk_m, ct_m)
    return hashlib.sha3_256(ss_m + x25519(sk_x, ct_x) + ct_x + pk_x + X_WING_LABEL).digest()


def x_wing_answers():
    ek_m, _, _, pk_x = x_wing_keys(X_WING_SEED)
    ss_m, ct_m = ML_KEM_768._encaps_internal(ek_m, X_WING_ESEED[:32])
    ek_x = X_WING_ESEED[32:]
    ct_x = x25519(ek_x, BASE)
    shared = hashlib.sha3_256(ss_m + x25519(ek_x, pk_x) + ct_x + pk_x + X_WING_LABEL).digest()
    ct = ct_m + ct_x
    assert x_wing_decaps(X_WING_SEED, ct) == shared, "the round trip"
    rejected = x_wing_decaps(X_WING_SEED, flipped(ct))
    assert rejected != shared
    return (("ek", ek_m + pk_x), ("ct", ct), ("ss", shared), ("rejected", rejected))


def rounds_of(dsa, sign):
    """Runs sign(), counting the rounds of the rejection loop: each round
    samples its mask y once (ExpandMask, FIPS 204 Algorithm 7 line 11)."""
    count = [0]
    expand = dsa._expand_mask_vector

    def counted(*args, **kwargs):
        count[0] += 1
        return expand(*args, **kwargs)

    dsa._expand_mask_vector = counted
    try:
        return sign(), count[0]
    finally:
        del dsa._expand_mask_vector


def dsa_answers(dsa):
    pk, sk = dsa._keygen_internal(XI)
    assert (pk, sk) == dsa.key_derive(XI)
    external = bytes([0, len(CONTEXT)]) + CONTEXT + MESSAGE
    sig, rounds = rounds_of(dsa, lambda: dsa._sign_internal(sk, external, RND))
    assert rounds == ROUNDS, f"signing took {rounds} rounds, not {ROUNDS}: choose the message again"
    assert sig == dsa.sign(sk, MESSAGE, ctx=CONTEXT, deterministic=True), "the external form"
    assert dsa.verify(pk, MESSAGE, sig, ctx=CONTEXT)
    return (("pk", pk), ("sk", sk), ("sig", sig))


def slh_dsa_answers(par):
    """slh_keygen_internal (FIPS 205 Algorithm 18): PK.root is the root of
    the top XMSS tree, layer d - 1; then slh_sign (Algorithm 22) with
    opt_rand = PK.seed (the deterministic variant, §9.2)."""
    n = par.n
    sk_seed, sk_prf, pk_seed = SLH_DSA_SEEDS[:n], SLH_DSA_SEEDS[n : 2 * n], SLH_DSA_SEEDS[2 * n : 3 * n]
    pk_root = XMSS(par).node(sk_seed, 0, par.h_m, pk_seed, Address(par.d - 1, 0))
    secret = slhdsa.SecretKey((sk_seed, sk_prf, pk_seed, pk_root), par)
    public = secret.pubkey
    sig = secret.sign_pure(MESSAGE, randomize=False, ctx=CONTEXT)
    assert public.verify_pure(MESSAGE, sig, ctx=CONTEXT), "the round trip"
    assert not public.verify_pure(flipped(MESSAGE), sig, ctx=CONTEXT)
    pk = pk_seed + pk_root
    assert public.digest() == pk
    sk = sk_seed + sk_prf + pk
    assert secret.digest() == sk
    return (("pk", pk), ("sk", sk), ("sig", sig))


def fn_dsa_answers(logn):
    """The key pair of the seed and the signature of the message (raw, empty
    context) with the signing seed; it verifies, and not for the message with
    one bit flipped."""
    ffi, lib = py_fn_dsa.ffi, py_fn_dsa.lib
    sizes = (
        py_fn_dsa._calc_sign_key_size(logn),
        py_fn_dsa._calc_vrfy_key_size(logn),
        py_fn_dsa._calc_signature_size(logn),
    )
    sk, pk, sig = (ffi.new(f"unsigned char[{size}]") for size in sizes)
    lib.fndsa_keygen_seeded(logn, FN_DSA_KEYGEN_SEED, 32, sk, pk)  # void: it cannot fail
    # The C takes the hash identifier as a NUL-terminated string: raw is the
    # one byte 0x00 (py-fn-dsa's HASH_ID_RAW is b"", the terminator alone).
    raw = py_fn_dsa.HASH_ID_RAW + b"\0"
    written = lib.fndsa_sign_seeded(
        sk, sizes[0], b"", 0, raw, MESSAGE, len(MESSAGE), FN_DSA_SIGN_SEED, 40, sig, sizes[2]
    )
    assert written == sizes[2], f"signing wrote {written} bytes"

    def verifies(message):
        return lib.fndsa_verify(sig, sizes[2], pk, sizes[1], b"", 0, raw, message, len(message)) == 1

    assert verifies(MESSAGE), "the round trip"
    assert not verifies(flipped(MESSAGE))
    return (("pk", bytes(ffi.buffer(pk))), ("sk", bytes(ffi.buffer(sk))), ("sig", bytes(ffi.buffer(sig))))


def hash_sigs_top(seed: bytes):
    """The top tree's SEED and I from the master seed, as hash-sigs makes them
    (hss_generate_root_seed_I_value): with D_TOPSEED = 0xfefe at bytes 20-21
    and a selector at byte 22, the seed is hashed once in place, then twice
    more with selectors 1 (SEED) and 2 (I, the first 16 bytes)."""
    def hashed(which: int, value: bytes) -> bytes:
        return hashlib.sha256(bytes(20) + b"\xfe\xfe" + bytes([which]) + value).digest()

    stirred = hashed(0, seed)
    return hashed(1, stirred), hashed(2, stirred)[:16]


def hash_sigs_derive(seed: bytes, i: bytes, q: int, j: int) -> bytes:
    """hash-sigs' hss_seed_derive: H(I || u32(q) || u16(j) || 0xff || SEED),
    RFC 8554 Appendix A's form (j a chain there, a purpose here)."""
    return hashlib.sha256(i + q.to_bytes(4, "big") + j.to_bytes(2, "big") + b"\xff" + seed).digest()


# hash-sigs' purposes: a child tree's SEED and I, and a signature's randomizer C.
SEED_CHILD_SEED, SEED_CHILD_I, SEED_RANDOMIZER = 0xFFFE, 0xFFFF, 0xFFFD


def lms_sign(key, message: bytes, randomizer: bytes) -> bytes:
    """pyhsslms's LMS signature by the key's next leaf, with C given (pyhsslms
    draws C from its module's randBytes, which is stood in for this call)."""
    drawn = hsslms.randBytes
    hsslms.randBytes = lambda n: randomizer
    try:
        return key.sign(message)
    finally:
        hsslms.randBytes = drawn


def hss_answers(levels: int, lms_type: bytes, lmots_type: bytes):
    """A fresh key of the master seed: every tree at its first leaf (q = 0),
    each child's SEED and I derived from its parent's at that leaf, each
    signature's C from the signed tree's own SEED and I; the HSS signature of
    the message is Nspk = levels - 1, each signed child public key, then the
    bottom tree's signature (RFC 8554 §6.2)."""
    seed, i = hash_sigs_top(HSS_SEED)
    trees = [hsslms.LmsPrivateKey(lms_type=lms_type, lmots_type=lmots_type, SEED=seed, I=i)]
    for _ in range(1, levels):
        seed = hash_sigs_derive(trees[-1].SEED, trees[-1].I, 0, SEED_CHILD_SEED)
        i = hash_sigs_derive(trees[-1].SEED, trees[-1].I, 0, SEED_CHILD_I)[:16]
        trees.append(hsslms.LmsPrivateKey(lms_type=lms_type, lmots_type=lmots_type, SEED=seed, I=i))
    sig = (levels - 1).to_bytes(4, "big")
    for parent, child in zip(trees, trees[1:]):
        child_pk = child.publicKey().serialize()
        sig += lms_sign(parent, child_pk, hash_sigs_derive(child.SEED, child.I, 0, SEED_RANDOMIZER)) + child_pk
    bottom = trees[-1]
    sig += lms_sign(bottom, MESSAGE, hash_sigs_derive(bottom.SEED, bottom.I, 0, SEED_RANDOMIZER))
    public = hsslms.HssPublicKey(trees[0].publicKey(), levels)
    assert public.verify(MESSAGE, sig), "the round trip"
    assert not public.verify(flipped(MESSAGE), sig)
    return (("pk", public.serialize()), ("sig", sig))


def rfc_8554_vectors_verify():
    """RFC 8554 Appendix F's test cases verify under pyhsslms, and not with the
    message's first bit flipped: the bytes the suite keeps are the RFC's."""
    for case in ("test-case-1", "test-case-2"):
        read = lambda part: (RFC_8554 / f"{case}.{part}").read_bytes()
        public = hsslms.HssPublicKey.deserialize(read("pub"))
        message, sig = read("msg"), read("sig")
        assert public.verify(message, sig), f"RFC 8554 {case} does not verify"
        assert not public.verify(flipped(message), sig), f"RFC 8554 {case} verifies a flipped message"


def answers():
    for name, kem in KEMS:
        yield name, kem_answers(kem)
    for name, dsa in DSAS:
        yield name, dsa_answers(dsa)
    yield "X25519MLKEM768", x25519_mlkem768_answers()
    yield "X-Wing", x_wing_answers()
    for name, par in SLH_DSAS:
        yield name, slh_dsa_answers(par)
    for name, logn in FN_DSAS:
        yield name, fn_dsa_answers(logn)
    rfc_8554_vectors_verify()
    for name, levels, lms_type, lmots_type in HSSES:
        yield name, hss_answers(levels, lms_type, lmots_type)


def lines():
    yield f"input d {D.hex()}"
    yield f"input z {Z.hex()}"
    yield f"input m {M.hex()}"
    yield f"input xi {XI.hex()}"
    yield f"input message {MESSAGE.hex()}"
    # M' = 0x00 || |ctx| || ctx || M: what precedes M (FIPS 204 Algorithm 2, line 10).
    yield f"input message-prefix {(bytes([0, len(CONTEXT)]) + CONTEXT).hex()}"
    yield f"input rnd {RND.hex()}"
    yield f"input client-x25519 {CLIENT_X25519.hex()}"
    yield f"input server-x25519 {SERVER_X25519.hex()}"
    yield f"input x-wing-seed {X_WING_SEED.hex()}"
    yield f"input x-wing-eseed {X_WING_ESEED.hex()}"
    yield f"input slh-dsa-seeds {SLH_DSA_SEEDS.hex()}"
    yield f"input fn-dsa-keygen-seed {FN_DSA_KEYGEN_SEED.hex()}"
    yield f"input fn-dsa-sign-seed {FN_DSA_SIGN_SEED.hex()}"
    yield f"input hss-seed {HSS_SEED.hex()}"
    for name, outputs in answers():
        for output, data in outputs:
            yield f"{name} {output} {digest(data)}"


def rust():
    pins = ", ".join(f"{package} {wanted}" for package, wanted in PINS.items())
    print(f"// Derived by crates/suite/kat/derive.py ({pins}).")
    for name, outputs in answers():
        kind = {"ML-KEM": "KemAnswers", "ML-DSA": "DsaAnswers", "FN-DSA": "DsaAnswers", "SLH-DS": "SlhDsaAnswers", "HSS-SH": "HssAnswers"}.get(
            name[:6], "HybridAnswers"
        )
        const = name.replace("-", "_").upper()
        print(f"pub(crate) const {const}: {kind} = {kind} {{")
        for output, data in outputs:
            print(f'    {output}: hex("{digest(data)}"),')
        print("};")


if __name__ == "__main__":
    if sys.argv[1:] == ["--rust"]:
        rust()
    elif sys.argv[1:]:
        sys.exit("usage: derive.py [--rust]")
    else:
        for line in lines():
            print(line)
