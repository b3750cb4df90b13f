"""The asyncio websocket server: a thin pump around sans-I/O matches, lobby, ladder, storage."""
