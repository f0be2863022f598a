#!/usr/bin/env python3
"""Derives the known answers of pqbench's ML-KEM and ML-DSA self-tests from an
independent implementation: the pure-Python kyber-py and dilithium-py, at the
versions pinned in requirements.txt beside this script.

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


def answers():
    for name, kem in KEMS:
        yield name, kem_answers(kem)
    for name, dsa in DSAS:
        yield name, dsa_answers(dsa)


def lines():
    yield f"input d {D.hex()}"
    yield f"input z {Z.hex()}"
    yield f"input m {M.hex()}"
    yield f"input xi {XI.hex()}"
    yield f"input message {MESSAGE.hex()}"
    # M' = 0x00 || |ctx| || ctx || M: what precedes M (FIPS 204 Algorithm 2, line 10).
    yield f"input message-prefix {(bytes([0, len(CONTEXT)]) + CONTEXT).hex()}"
    yield f"input rnd {RND.hex()}"
    for name, outputs in answers():
        for output, data in outputs:
            yield f"{name} {output} {digest(data)}"


def rust():
    pins = ", ".join(f"{package} {wanted}" for package, wanted in PINS.items())
    print(f"// Derived by crates/suite/kat/derive.py ({pins}).")
    for name, outputs in answers():
        kind = "KemAnswers" if name.startswith("ML-KEM") else "DsaAnswers"
        const = name.replace("-", "_")
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
