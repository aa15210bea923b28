#ifndef CCURL_H
#define CCURL_H

#include <curl/curl.h>

/* curl_easy_setopt, curl_easy_getinfo and curl_multi_setopt are variadic, which Swift cannot
   call; these typed wrappers fix the argument type per option kind. */

typedef size_t (*ccurl_data_callback)(char *ptr, size_t size, size_t nmemb, void *userdata);
typedef int (*ccurl_xferinfo_callback)(void *userdata, curl_off_t dltotal, curl_off_t dlnow,
                                       curl_off_t ultotal, curl_off_t ulnow);

CURLcode ccurl_easy_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode ccurl_easy_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode ccurl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value);
CURLcode ccurl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value);
CURLcode ccurl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value);
CURLcode ccurl_easy_setopt_write_callback(CURL *handle, ccurl_data_callback callback);
CURLcode ccurl_easy_setopt_header_callback(CURL *handle, ccurl_data_callback callback);
CURLcode ccurl_easy_setopt_xferinfo_callback(CURL *handle, ccurl_xferinfo_callback callback);

CURLcode ccurl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value);
CURLcode ccurl_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value);
CURLcode ccurl_easy_getinfo_string(CURL *handle, CURLINFO info, const char **value);
CURLcode ccurl_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value);

CURLMcode ccurl_multi_setopt_long(CURLM *multi, CURLMoption option, long value);

/* CURLMsg holds a union; these read it without Swift needing to know its layout. */
CURL *ccurl_msg_easy_handle(const CURLMsg *message);
int ccurl_msg_is_done(const CURLMsg *message);
CURLcode ccurl_msg_result(const CURLMsg *message);

/* CURL_WRITEFUNC_PAUSE and CURLPAUSE_CONT are macros; a write callback returns the first to
   pause a transfer, and ccurl_easy_unpause resumes it. */
size_t ccurl_writefunc_pause(void);
CURLcode ccurl_easy_unpause(CURL *handle);

/* CURL_GLOBAL_ALL is a compound macro Swift does not import. */
CURLcode ccurl_global_init_all(void);

/* CURL_ERROR_SIZE is a macro; callers size the CURLOPT_ERRORBUFFER with it. */
size_t ccurl_error_size(void);

#endif
