"""The Python client library and bot runner, the browser client, and kits for other languages."""
