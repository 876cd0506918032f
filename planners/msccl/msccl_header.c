/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * The <algo> start tag of an MSCCL-XML file without parsing the rest
 * (msccl.h): libxml2's streaming reader stops at the first element, so the
 * cost grows with the text before it, not with the file.  The component
 * uses it to tell a communicator that a schedule is for another number of
 * ranks before, or instead of, the full parse and check.
 */
#include "msccl.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/xmlreader.h>

themis_status_t themis_msccl_header(const char *text, size_t size, themis_msccl_info_t *info)
{
    themis_status_t st = THEMIS_ERR_PARSE;

    memset(info, 0, sizeof(*info));
    if (size > THEMIS_MSCCL_MAX_FILE || size > INT_MAX) {
        return THEMIS_ERR_UNSUPPORTED;
    }
    xmlTextReaderPtr r = xmlReaderForMemory(text, (int) size, "msccl.xml", NULL,
                                            XML_PARSE_NONET | XML_PARSE_NOERROR
                                                | XML_PARSE_NOWARNING);
    if (NULL == r) {
        return THEMIS_ERR_NOMEM;
    }
    /* Comments and processing instructions may come first; a DOCTYPE ends
     * the look (the full parse refuses it with its line). */
    while (1 == xmlTextReaderRead(r)) {
        int type = xmlTextReaderNodeType(r);
        if (XML_READER_TYPE_ELEMENT != type) {
            if (XML_READER_TYPE_DOCUMENT_TYPE == type) {
                break;
            }
            continue;
        }
        const xmlChar *name = xmlTextReaderConstLocalName(r);
        xmlChar *ngpus = xmlTextReaderGetAttribute(r, (const xmlChar *) "ngpus");
        if (NULL != name && 0 == strcmp((const char *) name, "algo") && NULL != ngpus) {
            /* As the full parse reads it (msccl_import.c parse_algo). */
            char *end;
            errno = 0;
            long long g = strtoll((const char *) ngpus, &end, 10);
            if (0 == errno && end != (char *) ngpus && '\0' == *end && g >= 1
                && g <= THEMIS_MSCCL_MAX_GPUS) {
                xmlChar *algo = xmlTextReaderGetAttribute(r, (const xmlChar *) "name");
                info->ngpus = (uint32_t) g;
                snprintf(info->name, sizeof(info->name), "%s",
                         NULL != algo ? (const char *) algo : "");
                xmlFree(algo);
                st = THEMIS_OK;
            }
        }
        xmlFree(ngpus);
        break;
    }
    xmlFreeTextReader(r);
    return st;
}
