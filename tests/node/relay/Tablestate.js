// The documents of the Relay test client, compiled by relay-compiler against
// schema/schema.graphql (never run: relay.test.mjs runs the artifacts the compiler makes).

import { graphql } from 'relay-runtime';

export const tables = graphql`
  query TablestateTablesQuery($count: Int!, $cursor: String) {
    ...Tablestate_tables @arguments(count: $count, cursor: $cursor)
  }
`;

graphql`
  fragment Tablestate_tables on Query
  @refetchable(queryName: "TablestateTablesPaginationQuery")
  @argumentDefinitions(count: { type: "Int!" }, cursor: { type: "String" }) {
    tables(gameId: "all-fives", first: $count, after: $cursor)
      @connection(key: "Tablestate_tables") {
      edges {
        node {
          id
          status
        }
      }
    }
  }
`;

export const table = graphql`
  query TablestateTableQuery($id: ID!, $count: Int, $cursor: String) {
    table(id: $id) {
      ...Tablestate_table
      ...Tablestate_events @arguments(count: $count, cursor: $cursor)
    }
  }
`;

graphql`
  fragment Tablestate_table on Table @refetchable(queryName: "TablestateTableRefetchQuery") {
    id
    status
    version
    seats {
      id
      name
      kind
    }
  }
`;

graphql`
  fragment Tablestate_events on Table
  @refetchable(queryName: "TablestateEventsPaginationQuery")
  @argumentDefinitions(count: { type: "Int" }, cursor: { type: "String" }) {
    eventsConnection(first: $count, after: $cursor)
      @connection(key: "Tablestate_eventsConnection") {
      edges {
        node {
          id
          cursor
          type
        }
      }
    }
  }
`;
