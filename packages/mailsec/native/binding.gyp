{
  # Built by `npm ci` through packages/mailsec/native/build.mjs (optional: the resolver falls back
  # to node:dgram when the module is missing). Plain C against node_api.h: Node-API is ABI-stable,
  # so one build loads in every Node version that offers Node-API 8.
  "targets": [
    {
      "target_name": "udp_batch",
      "sources": ["udp_batch.c"],
      "cflags": ["-O2", "-Wall", "-Wextra", "-Wno-unused-parameter"],
      "defines": ["NAPI_DISABLE_CPP_EXCEPTIONS"]
    }
  ]
}
