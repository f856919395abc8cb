fn main() {
    std::process::exit(mdbook_agentx::cli::main());
}
