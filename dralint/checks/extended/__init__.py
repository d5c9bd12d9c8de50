"""Extended resources backed by DRA and the device-plugin-to-DRA migration."""
