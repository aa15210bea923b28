/* libcrypto's EVP interface: SHA-256, AES-256-GCM sealing of stored keys, and AES-128-CBC
   decryption of HLS segments in one pass (one key schedule per segment, AES-NI when the CPU
   has it). */
#include <openssl/evp.h>
/* The CSPRNG for master keys and AES-GCM nonces. */
#include <openssl/rand.h>
/* X.509 parsing of licence service certificates (PEM or DER), and the error queue that says
   why a parse failed. */
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
