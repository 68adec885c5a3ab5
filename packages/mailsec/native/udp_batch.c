// udp_batch: a connected UDP socket for the DNS resolver's pool, with batched system calls.
//
// Why: Node's dgram costs one sendto() and one recvmsg() plus one JS callback per datagram; at
// tens of thousands of DNS queries per second that path, not the resolver, is the ceiling. Here a
// readable socket is drained with recvmmsg() (up to `slots` datagrams per system call) and JS is
// called once per batch; queries queued during one event-loop turn leave with one sendmmsg().
// The socket lives in libuv's loop through uv_poll, so nothing blocks and no thread is added.
//
// Safety (the pool in src/resolver/udp-pool.ts relies on it):
// - The socket is bound to a kernel-chosen (random) ephemeral port and connect()ed to the one
//   server: the kernel then delivers only that server's datagrams. The source address and port
//   of every datagram are compared with the server's again here anyway, and mismatches dropped.
// - Each datagram lands in its own fixed-size slot of a JS-owned buffer. A datagram larger than
//   its slot (MSG_TRUNC) is dropped, never handed over cut short.
// - Dropped datagrams are reported with length -1 so that JS counts them; everything else
//   (transaction id, question, decoding) is checked in JS, exactly as for dgram sockets.
// Linux only (recvmmsg/sendmmsg); elsewhere the module loads with `supported: false`.
#define _GNU_SOURCE
#define NAPI_VERSION 8
#include <node_api.h>
#include <stdlib.h>
#include <string.h>

#ifdef __linux__
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <uv.h>

#define MAX_SLOTS 64
#define MAX_SEND 128
// Batches delivered per readable event before yielding to the rest of the loop, so one busy
// socket cannot starve timers and other sockets.
#define MAX_ROUNDS 4

// Marks our externals, so that a handle from elsewhere is refused instead of misread.
static const napi_type_tag SOCK_TAG = {0x6476756470626174ULL, 0x63685f736f636b31ULL};

typedef struct Sock {
  napi_env env;
  uv_poll_t poll;
  int fd;
  int closing;    // close started: no more callbacks into JS
  int uv_closed;  // libuv has released the poll handle
  int js_gone;    // the JS external was garbage-collected
  struct sockaddr_storage peer;
  socklen_t peer_len;
  char *slots_data;  // JS-owned Buffer, kept alive by recv_ref
  int32_t *lens;     // JS-owned Int32Array, kept alive by lens_ref
  size_t slot_size;
  unsigned slots;
  napi_ref recv_ref, lens_ref, cb_ref;
  napi_async_context async_ctx;
  napi_async_cleanup_hook_handle cleanup;
  struct mmsghdr msgs[MAX_SLOTS];
  struct iovec iov[MAX_SLOTS];
  struct sockaddr_storage from[MAX_SLOTS];
} Sock;

static void on_uv_closed(uv_handle_t *h) {
  Sock *s = (Sock *)h->data;
  close(s->fd);
  s->uv_closed = 1;
  // Lets a terminating environment (e.g. a worker thread) finish: its loop must not close with
  // our handle still open.
  napi_remove_async_cleanup_hook(s->cleanup);
  if (s->js_gone) free(s);
}

// Idempotent. `teardown`: the environment is going away; its references die with it.
static void start_close(Sock *s, int teardown) {
  if (s->closing) return;
  s->closing = 1;
  uv_poll_stop(&s->poll);
  uv_close((uv_handle_t *)&s->poll, on_uv_closed);
  if (!teardown) {
    napi_delete_reference(s->env, s->cb_ref);
    napi_delete_reference(s->env, s->recv_ref);
    napi_delete_reference(s->env, s->lens_ref);
    napi_async_destroy(s->env, s->async_ctx);
  }
}

static void on_env_teardown(napi_async_cleanup_hook_handle handle, void *arg) {
  (void)handle;
  start_close((Sock *)arg, 1);
}

static void on_external_gc(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  Sock *s = (Sock *)data;
  s->js_gone = 1;
  if (!s->closing) start_close(s, 0);
  if (s->uv_closed) free(s);
}

static int same_peer(const Sock *s, const struct sockaddr_storage *a) {
  if (a->ss_family != s->peer.ss_family) return 0;
  if (a->ss_family == AF_INET) {
    const struct sockaddr_in *x = (const struct sockaddr_in *)a, *y = (const struct sockaddr_in *)&s->peer;
    return x->sin_port == y->sin_port && x->sin_addr.s_addr == y->sin_addr.s_addr;
  }
  if (a->ss_family == AF_INET6) {
    const struct sockaddr_in6 *x = (const struct sockaddr_in6 *)a, *y = (const struct sockaddr_in6 *)&s->peer;
    return x->sin6_port == y->sin6_port && memcmp(&x->sin6_addr, &y->sin6_addr, sizeof x->sin6_addr) == 0;
  }
  return 0;
}

// Calls the JS callback (count, errno) in a proper async context, so that promise continuations
// run after it (like any I/O callback) and an exception reaches process 'uncaughtException'.
static void deliver(Sock *s, int count, int err) {
  napi_env env = s->env;
  napi_handle_scope scope;
  if (napi_open_handle_scope(env, &scope) != napi_ok) return;
  napi_value cb, recv, argv[2], result;
  if (napi_get_reference_value(env, s->cb_ref, &cb) == napi_ok && cb != NULL) {
    napi_get_global(env, &recv);  // napi_make_callback needs an object receiver
    napi_create_int32(env, count, &argv[0]);
    napi_create_int32(env, err, &argv[1]);
    if (napi_make_callback(env, s->async_ctx, recv, cb, 2, argv, &result) == napi_pending_exception) {
      napi_value exc;
      napi_get_and_clear_last_exception(env, &exc);
      napi_fatal_exception(env, exc);
    }
  }
  napi_close_handle_scope(env, scope);
}

static void on_readable(uv_poll_t *h, int status, int events) {
  (void)events;
  Sock *s = (Sock *)h->data;
  if (s->closing) return;
  if (status < 0) {
    // libuv reports EPOLLERR as UV_EBADF and stops the handle; the socket's own pending error
    // (ECONNREFUSED after an ICMP port unreachable...) says what happened.
    int err = 0;
    socklen_t len = sizeof err;
    if (getsockopt(s->fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err == 0) err = -status;
    deliver(s, 0, err);
    return;
  }
  for (int round = 0; round < MAX_ROUNDS && !s->closing; round++) {
    for (unsigned i = 0; i < s->slots; i++) {
      s->iov[i].iov_base = s->slots_data + (size_t)i * s->slot_size;
      s->iov[i].iov_len = s->slot_size;
      memset(&s->msgs[i].msg_hdr, 0, sizeof s->msgs[i].msg_hdr);
      s->msgs[i].msg_hdr.msg_iov = &s->iov[i];
      s->msgs[i].msg_hdr.msg_iovlen = 1;
      s->msgs[i].msg_hdr.msg_name = &s->from[i];
      s->msgs[i].msg_hdr.msg_namelen = sizeof s->from[i];
      s->msgs[i].msg_len = 0;
    }
    int n;
    do n = recvmmsg(s->fd, s->msgs, s->slots, MSG_DONTWAIT, NULL);
    while (n < 0 && errno == EINTR);
    if (n < 0) {
      // EAGAIN: drained. Anything else (ECONNREFUSED from an ICMP error...) goes to JS, which
      // fails this socket's queries over to the resolver's retry path, as dgram's 'error' does.
      if (errno != EAGAIN && errno != EWOULDBLOCK) deliver(s, 0, errno);
      return;
    }
    for (int i = 0; i < n; i++) {
      const struct msghdr *m = &s->msgs[i].msg_hdr;
      int ok = !(m->msg_flags & MSG_TRUNC) && m->msg_namelen > 0 && same_peer(s, &s->from[i]);
      s->lens[i] = ok ? (int32_t)s->msgs[i].msg_len : -1;
    }
    if (n > 0) deliver(s, n, 0);
    if ((unsigned)n < s->slots) return;
  }
}

static napi_value throw_errno(napi_env env, const char *what, int err) {
  char msg[160];
  snprintf(msg, sizeof msg, "%s: %s", what, strerror(err));
  napi_throw_error(env, NULL, msg);
  return NULL;
}

// open(host: string, port: number, slots: Buffer, lens: Int32Array, slotSize: number,
//      onRecv: (count: number, errno: number) => void): external
// `slots` holds lens.length slots of slotSize bytes; after onRecv(count, 0) the first `count`
// entries of `lens` give each slot's datagram length, or -1 for a dropped one. The slot contents
// are only valid during the callback (the next batch overwrites them).
static napi_value js_open(napi_env env, napi_callback_info info) {
  size_t argc = 6;
  napi_value argv[6];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 6) {
    napi_throw_type_error(env, NULL, "open(host, port, slots, lens, slotSize, onRecv)");
    return NULL;
  }
  char host[INET6_ADDRSTRLEN + 1];
  size_t host_len = 0;
  uint32_t port = 0, slot_size = 0;
  void *slots_data = NULL, *lens_data = NULL;
  size_t slots_bytes = 0, lens_count = 0;
  napi_typedarray_type lens_type;
  napi_valuetype cb_type;
  if (napi_get_value_string_utf8(env, argv[0], host, sizeof host, &host_len) != napi_ok || host_len >= sizeof host - 1 ||
      napi_get_value_uint32(env, argv[1], &port) != napi_ok || port == 0 || port > 65535 ||
      napi_get_buffer_info(env, argv[2], &slots_data, &slots_bytes) != napi_ok ||
      napi_get_typedarray_info(env, argv[3], &lens_type, &lens_count, &lens_data, NULL, NULL) != napi_ok ||
      lens_type != napi_int32_array || lens_count == 0 || lens_count > MAX_SLOTS ||
      napi_get_value_uint32(env, argv[4], &slot_size) != napi_ok || slot_size == 0 || slot_size > 65536 ||
      (size_t)slot_size * lens_count > slots_bytes ||
      napi_typeof(env, argv[5], &cb_type) != napi_ok || cb_type != napi_function) {
    napi_throw_type_error(env, NULL, "udp_batch.open: bad arguments");
    return NULL;
  }
  struct sockaddr_storage peer;
  socklen_t peer_len;
  memset(&peer, 0, sizeof peer);
  struct sockaddr_in *v4 = (struct sockaddr_in *)&peer;
  struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&peer;
  if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons((uint16_t)port);
    peer_len = sizeof *v4;
  } else if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
    // Scoped addresses (fe80::1%eth0) are not accepted by inet_pton: JS uses dgram for those.
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons((uint16_t)port);
    peer_len = sizeof *v6;
  } else {
    napi_throw_error(env, NULL, "udp_batch.open: not a numeric IP address");
    return NULL;
  }
  int fd = socket(peer.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return throw_errno(env, "socket", errno);
  // connect() on an unbound socket binds it to a random ephemeral port first (Linux randomizes
  // the choice), as dgram's implicit bind does.
  if (connect(fd, (struct sockaddr *)&peer, peer_len) != 0) {
    int err = errno;
    close(fd);
    return throw_errno(env, "connect", err);
  }
  uv_loop_t *loop;
  if (napi_get_uv_event_loop(env, &loop) != napi_ok) {
    close(fd);
    napi_throw_error(env, NULL, "udp_batch.open: no event loop");
    return NULL;
  }
  Sock *s = (Sock *)calloc(1, sizeof *s);
  if (!s) {
    close(fd);
    return throw_errno(env, "calloc", ENOMEM);
  }
  s->env = env;
  s->fd = fd;
  s->peer = peer;
  s->peer_len = peer_len;
  s->slots_data = (char *)slots_data;
  s->lens = (int32_t *)lens_data;
  s->slot_size = slot_size;
  s->slots = (unsigned)lens_count;
  int rc = uv_poll_init_socket(loop, &s->poll, fd);
  if (rc != 0) {
    close(fd);
    free(s);
    return throw_errno(env, "uv_poll_init_socket", -rc);
  }
  s->poll.data = s;
  napi_value resource_name, external;
  napi_create_string_utf8(env, "dv:udp-batch", NAPI_AUTO_LENGTH, &resource_name);
  napi_create_reference(env, argv[2], 1, &s->recv_ref);
  napi_create_reference(env, argv[3], 1, &s->lens_ref);
  napi_create_reference(env, argv[5], 1, &s->cb_ref);
  napi_async_init(env, NULL, resource_name, &s->async_ctx);
  napi_add_async_cleanup_hook(env, on_env_teardown, s, &s->cleanup);
  rc = uv_poll_start(&s->poll, UV_READABLE, on_readable);
  // Idle sockets must not keep the process alive; pending queries hold their own timers.
  uv_unref((uv_handle_t *)&s->poll);
  if (rc != 0 || napi_create_external(env, s, on_external_gc, NULL, &external) != napi_ok) {
    start_close(s, 0);
    s->js_gone = 1;
    napi_throw_error(env, NULL, "udp_batch.open: cannot start the socket");
    return NULL;
  }
  napi_type_tag_object(env, external, &SOCK_TAG);
  return external;
}

static Sock *get_sock(napi_env env, napi_value v) {
  void *data = NULL;
  napi_valuetype t;
  bool ours = false;
  if (napi_typeof(env, v, &t) != napi_ok || t != napi_external) return NULL;
  if (napi_check_object_type_tag(env, v, &SOCK_TAG, &ours) != napi_ok || !ours) return NULL;
  if (napi_get_value_external(env, v, &data) != napi_ok) return NULL;
  return (Sock *)data;
}

// send(handle, queries: Buffer[], count): number — datagrams sent, in order (fewer than count
// when the socket buffer filled up), or -errno when the first one could not be sent.
static napi_value js_send(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3], out;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  Sock *s = argc == 3 ? get_sock(env, argv[0]) : NULL;
  uint32_t count = 0;
  if (!s || napi_get_value_uint32(env, argv[2], &count) != napi_ok) {
    napi_throw_type_error(env, NULL, "udp_batch.send(handle, queries, count)");
    return NULL;
  }
  if (s->closing) {
    napi_create_int32(env, -EBADF, &out);
    return out;
  }
  struct mmsghdr msgs[MAX_SEND];
  struct iovec iov[MAX_SEND];
  int sent = 0, err = 0;
  // In chunks of MAX_SEND: the message vectors live on the stack.
  while ((uint32_t)sent < count && err == 0) {
    uint32_t chunk = count - (uint32_t)sent;
    if (chunk > MAX_SEND) chunk = MAX_SEND;
    for (uint32_t i = 0; i < chunk; i++) {
      napi_value el;
      void *data = NULL;
      size_t len = 0;
      if (napi_get_element(env, argv[1], (uint32_t)sent + i, &el) != napi_ok || napi_get_buffer_info(env, el, &data, &len) != napi_ok) {
        napi_throw_type_error(env, NULL, "udp_batch.send: queries must be Buffers");
        return NULL;
      }
      iov[i].iov_base = data;
      iov[i].iov_len = len;
      memset(&msgs[i], 0, sizeof msgs[i]);
      msgs[i].msg_hdr.msg_iov = &iov[i];
      msgs[i].msg_hdr.msg_iovlen = 1;
    }
    uint32_t done = 0;
    while (done < chunk) {
      int n = sendmmsg(s->fd, msgs + done, chunk - done, MSG_DONTWAIT);
      if (n < 0) {
        if (errno == EINTR) continue;
        err = errno;
        break;
      }
      done += (uint32_t)n;
    }
    sent += (int)done;
  }
  napi_create_int32(env, sent == 0 && err != 0 ? -err : sent, &out);
  return out;
}

static napi_value js_close(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  Sock *s = argc == 1 ? get_sock(env, argv[0]) : NULL;
  if (s) start_close(s, 0);
  return NULL;
}

// localPort(handle): number — the ephemeral port the kernel chose (tests check they differ).
static napi_value js_local_port(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1], out;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  Sock *s = argc == 1 ? get_sock(env, argv[0]) : NULL;
  struct sockaddr_storage a;
  socklen_t len = sizeof a;
  int port = -1;
  if (s && !s->closing && getsockname(s->fd, (struct sockaddr *)&a, &len) == 0) {
    port = a.ss_family == AF_INET ? ntohs(((struct sockaddr_in *)&a)->sin_port) : ntohs(((struct sockaddr_in6 *)&a)->sin6_port);
  }
  napi_create_int32(env, port, &out);
  return out;
}
#endif

NAPI_MODULE_INIT() {
  napi_value supported;
#ifdef __linux__
  napi_property_descriptor props[] = {
      {"open", NULL, js_open, NULL, NULL, NULL, napi_enumerable, NULL},
      {"send", NULL, js_send, NULL, NULL, NULL, napi_enumerable, NULL},
      {"close", NULL, js_close, NULL, NULL, NULL, napi_enumerable, NULL},
      {"localPort", NULL, js_local_port, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  napi_define_properties(env, exports, sizeof props / sizeof props[0], props);
  napi_get_boolean(env, 1, &supported);
#else
  napi_get_boolean(env, 0, &supported);
#endif
  napi_set_named_property(env, exports, "supported", supported);
  return exports;
}
