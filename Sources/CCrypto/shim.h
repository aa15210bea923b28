/* libcrypto's EVP interface: AES-128-CBC decryption of HLS segments in one pass (one key
   schedule per segment, AES-NI when the CPU has it). */
#include <openssl/evp.h>
