"""`tempo lsp` driven by a real third-party client (pytest-lsp, built on pygls).

The server binary is `TEMPO_BIN` (run.sh sets it to the freshly built target/debug/tempo).
"""

import os
import pathlib

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

TEMPO = os.environ.get("TEMPO_BIN", str(pathlib.Path(__file__).parents[2] / "target" / "debug" / "tempo"))

BASE = """ruleset base

## Action Points: full at the start of your turn.
pool ap "Action Points" {
  max 3
  refresh at turn_start
}

initiative { value 0 }
round { phase act: turns }
"""

# `apx` comes after `é` and an emoji on its line: its column is 35 in UTF-16 code units.
VARIANT = """ruleset variant extends "base.rules"

# Frappé 🎲
action strike "Frappé 🎲" { cost 1 apx; target enemy; resolve { } }
"""


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[TEMPO, "lsp"]))
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(types.InitializeParams(capabilities=types.ClientCapabilities()))
    yield
    await lsp_client.shutdown_session()
    # `shutdown` then `exit` must end the server with 0 (pygls keeps the process as `_server`).
    assert lsp_client._server.returncode == 0


@pytest.fixture
def files(tmp_path: pathlib.Path):
    (tmp_path / "base.rules").write_text(BASE, encoding="utf-8")
    return tmp_path


def open_document(client: LanguageClient, uri: str, text: str):
    item = types.TextDocumentItem(uri=uri, language_id="tempo", version=1, text=text)
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=item))


async def diagnostics_for(client: LanguageClient, uri: str):
    while uri not in client.diagnostics:
        await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    return client.diagnostics[uri]


async def test_diagnostics_then_fixed(client: LanguageClient, files: pathlib.Path):
    uri = (files / "variant.rules").as_uri()
    open_document(client, uri, VARIANT)
    found = await diagnostics_for(client, uri)
    assert [d.code for d in found] == ["tempo::unknown-pool"]
    assert found[0].range == types.Range(start=types.Position(3, 35), end=types.Position(3, 38))
    assert found[0].severity == types.DiagnosticSeverity.Error
    assert "did you mean `ap`?" in found[0].message

    client.diagnostics.pop(uri)
    change = types.TextDocumentContentChangeWholeDocument(text=VARIANT.replace("apx", "ap"))
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2), content_changes=[change]
        )
    )
    assert list(await diagnostics_for(client, uri)) == []


async def test_hover_shows_the_base_declaration_and_doc(client: LanguageClient, files: pathlib.Path):
    uri = (files / "variant.rules").as_uri()
    open_document(client, uri, VARIANT.replace("apx", "ap"))
    await diagnostics_for(client, uri)
    hover = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(3, 36))
    )
    assert hover is not None
    assert 'pool ap "Action Points"' in hover.contents.value
    assert "Action Points: full at the start of your turn." in hover.contents.value
    assert hover.range == types.Range(start=types.Position(3, 35), end=types.Position(3, 37))


async def test_definition_reaches_the_base(client: LanguageClient, files: pathlib.Path):
    uri = (files / "variant.rules").as_uri()
    open_document(client, uri, VARIANT.replace("apx", "ap"))
    await diagnostics_for(client, uri)
    found = await client.text_document_definition_async(
        types.DefinitionParams(text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(3, 36))
    )
    assert isinstance(found, types.Location)
    assert found.uri == (files / "base.rules").as_uri()
    assert found.range.start == types.Position(3, 5)
