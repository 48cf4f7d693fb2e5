// The tempo extension: starts `tempo lsp` (the language server in the tempo binary) for `.rules`
// files and for `tempo test` files (`*.test.ron`). The binary is the setting `tempo.server.path` (default: `tempo` on PATH).
"use strict";

const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");
const { isTempoRules } = require("./detect");

/** @type {LanguageClient | undefined} */
let client;

function makeClient() {
  const config = vscode.workspace.getConfiguration("tempo");
  const command = config.get("server.path", "tempo") || "tempo";
  const args = ["lsp", ...config.get("server.extraArgs", [])];
  const run = { command, args, transport: TransportKind.stdio };
  return new LanguageClient(
    "tempo",
    "tempo language server",
    { run, debug: run },
    {
      documentSelector: [
        { scheme: "file", language: "tempo" },
        { scheme: "untitled", language: "tempo" },
        // Test files (`*.test.ron`, docs/testing.md): diagnostics only.
        { scheme: "file", language: "tempo-test" },
      ],
    }
  );
}

async function start() {
  client = makeClient();
  try {
    await client.start();
  } catch (error) {
    vscode.window.showErrorMessage(
      `tempo: could not start \`tempo lsp\` (${error}). ` +
        "Install tempo (cargo install --path .) or set `tempo.server.path`."
    );
  }
}

async function stop() {
  if (client) {
    const old = client;
    client = undefined;
    await old.stop();
  }
}

/** A `.rules` file opened as another language becomes tempo's when it is a tempo ruleset.
 * @param {vscode.TextDocument} doc */
function claim(doc) {
  if (doc.languageId !== "tempo" && doc.fileName.endsWith(".rules") && isTempoRules(doc.getText())) {
    vscode.languages.setTextDocumentLanguage(doc, "tempo");
  }
}

/** @param {vscode.ExtensionContext} context */
async function activate(context) {
  vscode.workspace.textDocuments.forEach(claim);
  context.subscriptions.push(
    vscode.workspace.onDidOpenTextDocument(claim),
    vscode.commands.registerCommand("tempo.restartServer", async () => {
      await stop();
      await start();
    }),
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (event.affectsConfiguration("tempo.server")) {
        await stop();
        await start();
      }
    })
  );
  await start();
}

function deactivate() {
  return stop();
}

module.exports = { activate, deactivate };
