#include "CCurl.h"

CURLcode ccurl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode ccurl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode ccurl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode ccurl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode ccurl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode ccurl_easy_setopt_write_callback(CURL *handle, ccurl_data_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, callback);
}

CURLcode ccurl_easy_setopt_header_callback(CURL *handle, ccurl_data_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_HEADERFUNCTION, callback);
}

CURLcode ccurl_easy_setopt_xferinfo_callback(CURL *handle, ccurl_xferinfo_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, callback);
}

CURLcode ccurl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

CURLcode ccurl_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

CURLcode ccurl_easy_getinfo_string(CURL *handle, CURLINFO info, const char **value) {
    return curl_easy_getinfo(handle, info, value);
}

CURLcode ccurl_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value) {
    return curl_easy_getinfo(handle, info, value);
}

CURLMcode ccurl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

CURL *ccurl_msg_easy_handle(const CURLMsg *message) {
    return message->easy_handle;
}

int ccurl_msg_is_done(const CURLMsg *message) {
    return message->msg == CURLMSG_DONE;
}

CURLcode ccurl_msg_result(const CURLMsg *message) {
    return message->data.result;
}

size_t ccurl_error_size(void) {
    return CURL_ERROR_SIZE;
}

CURLcode ccurl_global_init_all(void) {
    return curl_global_init(CURL_GLOBAL_ALL);
}

size_t ccurl_writefunc_pause(void) {
    return CURL_WRITEFUNC_PAUSE;
}

CURLcode ccurl_easy_unpause(CURL *handle) {
    return curl_easy_pause(handle, CURLPAUSE_CONT);
}
