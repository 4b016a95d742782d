// Debian's libcurl.a is built with LDAP, RTMP and GSS-API (Kerberos, SPNEGO). Linked in
// statically, its objects for those name functions of libldap, liblber, librtmp and
// libgssapi_krb5, which with the libraries they need are 20 of the 30 that a shared libcurl
// loads: most of what a start spent loading it. tdl never reaches that code: it takes http,
// https, ftp, ftps, sftp and file URLs (URLCheck, RPCPolicy), authenticates to servers with
// Basic or Digest and to SOCKS5 proxies without GSS-API (Connection, TextFetch,
// StreamDownload), and never sets a Kerberos level for FTP. Should it be reached all the same,
// each function here fails as the library would with no such service, and libcurl reports
// that as a failed transfer. Hidden: nothing outside the binary binds to them.
#include <stddef.h>

#pragma GCC visibility push(hidden)

// GSS-API: every call fails (GSS_S_FAILURE), a release has nothing to release.
#define GSS_S_FAILURE (13u << 16)
typedef unsigned int OM_uint32;

static OM_uint32 gss_failed(OM_uint32 *minor) {
    if (minor) *minor = 0;
    return GSS_S_FAILURE;
}

void *GSS_C_NT_HOSTBASED_SERVICE = NULL;
OM_uint32 gss_import_name(OM_uint32 *minor, void *name, void *type, void **output) {
    (void)name, (void)type, (void)output;
    return gss_failed(minor);
}
OM_uint32 gss_init_sec_context(OM_uint32 *minor, void *credential, void **context, void *target, void *mechanism,
                               OM_uint32 flags, OM_uint32 lifetime, void *bindings, void *input, void **actual,
                               void *output, OM_uint32 *returned, OM_uint32 *time) {
    (void)credential, (void)context, (void)target, (void)mechanism, (void)flags, (void)lifetime, (void)bindings;
    (void)input, (void)actual, (void)output, (void)returned, (void)time;
    return gss_failed(minor);
}
OM_uint32 gss_inquire_context(OM_uint32 *minor, void *context, void **source, void **target, OM_uint32 *lifetime,
                              void **mechanism, OM_uint32 *flags, int *local, int *open) {
    (void)context, (void)source, (void)target, (void)lifetime, (void)mechanism, (void)flags, (void)local, (void)open;
    return gss_failed(minor);
}
OM_uint32 gss_display_name(OM_uint32 *minor, void *name, void *output, void **type) {
    (void)name, (void)output, (void)type;
    return gss_failed(minor);
}
OM_uint32 gss_display_status(OM_uint32 *minor, OM_uint32 status, int kind, void *mechanism, OM_uint32 *more, void *text) {
    (void)status, (void)kind, (void)mechanism, (void)text;
    if (more) *more = 0;
    return gss_failed(minor);
}
OM_uint32 gss_wrap(OM_uint32 *minor, void *context, int confidential, OM_uint32 protection, void *input,
                   int *state, void *output) {
    (void)context, (void)confidential, (void)protection, (void)input, (void)state, (void)output;
    return gss_failed(minor);
}
OM_uint32 gss_unwrap(OM_uint32 *minor, void *context, void *input, void *output, int *state, OM_uint32 *protection) {
    (void)context, (void)input, (void)output, (void)state, (void)protection;
    return gss_failed(minor);
}
OM_uint32 gss_delete_sec_context(OM_uint32 *minor, void **context, void *output) {
    (void)context, (void)output;
    if (minor) *minor = 0;
    return 0;
}
OM_uint32 gss_release_buffer(OM_uint32 *minor, void *buffer) {
    (void)buffer;
    if (minor) *minor = 0;
    return 0;
}
OM_uint32 gss_release_name(OM_uint32 *minor, void **name) {
    (void)name;
    if (minor) *minor = 0;
    return 0;
}

// RTMP: no session can be made (libcurl reports it as out of memory), none to use or free.
void *RTMP_Alloc(void) { return NULL; }
void RTMP_Init(void *session) { (void)session; }
int RTMP_SetupURL(void *session, char *url) { (void)session, (void)url; return 0; }
void RTMP_SetBufferMS(void *session, int milliseconds) { (void)session, (void)milliseconds; }
int RTMP_Connect1(void *session, void *packet) { (void)session, (void)packet; return 0; }
int RTMP_ConnectStream(void *session, int seek) { (void)session, (void)seek; return 0; }
int RTMP_Read(void *session, char *buffer, int size) { (void)session, (void)buffer, (void)size; return -1; }
int RTMP_Write(void *session, const char *buffer, int size) { (void)session, (void)buffer, (void)size; return -1; }
void RTMP_Close(void *session) { (void)session; }
void RTMP_Free(void *session) { (void)session; }

// OpenLDAP: no URL parses, no connection opens (LDAP_NOT_SUPPORTED), no option is known.
#define LDAP_NOT_SUPPORTED (-12)
#define LDAP_OPT_ERROR (-1)
#define LDAP_URL_ERR_BADSCHEME 3

int ldap_url_parse(const char *url, void **description) {
    (void)url;
    if (description) *description = NULL;
    return LDAP_URL_ERR_BADSCHEME;
}
void ldap_free_urldesc(void *description) { (void)description; }
int ldap_pvt_url_scheme2proto(const char *scheme) { (void)scheme; return -1; }
int ldap_init_fd(int socket, int protocol, const char *url, void **session) {
    (void)socket, (void)protocol, (void)url;
    if (session) *session = NULL;
    return LDAP_NOT_SUPPORTED;
}
char *ldap_err2string(int code) { (void)code; return "LDAP is not part of tdl"; }
int ldap_get_option(void *session, int option, void *value) { (void)session, (void)option, (void)value; return LDAP_OPT_ERROR; }
int ldap_set_option(void *session, int option, const void *value) { (void)session, (void)option, (void)value; return LDAP_OPT_ERROR; }
int ldap_start_tls(void *session, void **server, void **client, int *message) {
    (void)session, (void)server, (void)client, (void)message;
    return LDAP_NOT_SUPPORTED;
}
int ldap_sasl_bind(void *session, const char *name, const char *mechanism, void *credential, void **server,
                   void **client, int *message) {
    (void)session, (void)name, (void)mechanism, (void)credential, (void)server, (void)client, (void)message;
    return LDAP_NOT_SUPPORTED;
}
int ldap_search_ext(void *session, const char *base, int scope, const char *filter, char **attributes, int namesOnly,
                    void **server, void **client, void *timeout, int limit, int *message) {
    (void)session, (void)base, (void)scope, (void)filter, (void)attributes, (void)namesOnly, (void)server;
    (void)client, (void)timeout, (void)limit, (void)message;
    return LDAP_NOT_SUPPORTED;
}
int ldap_result(void *session, int message, int all, void *timeout, void **result) {
    (void)session, (void)message, (void)all, (void)timeout;
    if (result) *result = NULL;
    return -1;
}
int ldap_msgtype(void *result) { (void)result; return -1; }
int ldap_msgfree(void *result) { (void)result; return 0; }
int ldap_parse_result(void *session, void *result, int *code, char **matched, char **text, char ***referrals,
                      void ***controls, int release) {
    (void)session, (void)result, (void)code, (void)matched, (void)text, (void)referrals, (void)controls, (void)release;
    return LDAP_NOT_SUPPORTED;
}
int ldap_parse_sasl_bind_result(void *session, void *result, void **credential, int release) {
    (void)session, (void)result, (void)credential, (void)release;
    return LDAP_NOT_SUPPORTED;
}
int ldap_get_dn_ber(void *session, void *entry, void **element, void *name) {
    (void)session, (void)entry, (void)element, (void)name;
    return LDAP_NOT_SUPPORTED;
}
int ldap_get_attribute_ber(void *session, void *entry, void *element, void *name, void **values) {
    (void)session, (void)entry, (void)element, (void)name, (void)values;
    return LDAP_NOT_SUPPORTED;
}
int ldap_abandon_ext(void *session, int message, void **server, void **client) {
    (void)session, (void)message, (void)server, (void)client;
    return LDAP_NOT_SUPPORTED;
}
int ldap_unbind_ext(void *session, void **server, void **client) {
    (void)session, (void)server, (void)client;
    return LDAP_NOT_SUPPORTED;
}
void ldap_memfree(void *memory) { (void)memory; }
void ber_memfree(void *memory) { (void)memory; }
void ber_memvfree(void **memory) { (void)memory; }
void ber_bvfree(void *value) { (void)value; }
void ber_free(void *element, int buffer) { (void)element, (void)buffer; }
int ber_sockbuf_add_io(void *buffer, void *io, int layer, void *argument) {
    (void)buffer, (void)io, (void)layer, (void)argument;
    return -1;
}

#pragma GCC visibility pop
