"""Test doubles users can also use: a local fake OpenAI-compatible server."""
