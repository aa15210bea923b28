/* libxml2's streaming reader, for DASH MPDs (StashDASH). Documents are read with
   XML_PARSE_NONET and without XML_PARSE_NOENT, XML_PARSE_DTDLOAD or XML_PARSE_HUGE: no entity
   is expanded, nothing is fetched, and libxml2's own depth and text limits stay on while a
   document from a server is read. */
#include <libxml/xmlversion.h>
/* Debian builds libxml2 with ICU, and encoding.h then includes the system's ICU headers, whose
   UErrorCode clashes with the copy Foundation carries (_FoundationICU). Swift uses no ICU type
   of libxml2's: only xmlCharEncodingHandler's layout depends on it, and that struct is never
   touched from Swift, so the ICU members are left out of this view of the headers. */
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlreader.h>
